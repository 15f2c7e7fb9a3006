package io.queuegate.identity;

import java.net.InetAddress;
import java.net.InetSocketAddress;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

class IpLiteralTest {

    @ParameterizedTest(name = "{0} is {1}")
    @CsvSource(delimiter = '|', value = {
            "0.0.0.0                 | 0.0.0.0",
            "203.0.113.9             | 203.0.113.9",
            "255.255.255.255         | 255.255.255.255",
            "::                      | 0:0:0:0:0:0:0:0",
            "::1                     | 0:0:0:0:0:0:0:1",
            "2001:DB8::a:1           | 2001:db8:0:0:0:0:a:1",
            "2001:db8:0:0:0:0:0:1    | 2001:db8:0:0:0:0:0:1",
            "1::                     | 1:0:0:0:0:0:0:0",
            "1:2:3:4:5:6:7::         | 1:2:3:4:5:6:7:0",
            "::2:3:4:5:6:7:8         | 0:2:3:4:5:6:7:8",
            "64:ff9b::198.51.100.7   | 64:ff9b:0:0:0:0:c633:6407",
            "::ffff:198.51.100.7     | 198.51.100.7" })
    void readsLiteralAddressesAsTheJdkDoes(String text, String address) throws Exception {
        byte[] bytes = IpLiteral.parse(text);
        assertThat(bytes).isNotNull();
        assertThat(InetAddress.getByAddress(bytes).getHostAddress()).isEqualTo(address);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = { "", " ", "cafe", "localhost", "1234", "0x7f.0.0.1", "0177.0.0.1", "01.2.3.4",
            "1.2.3", "1.2.3.4.5", "1.2.3.", ".1.2.3", "256.0.0.1", "1.2.3.-4", "1..2.3", "1.2.3.4 ", "1.2.3.4:80",
            "[::1]", "12345::", "1:2:3:4:5:6:7:8:9", "1::2::3", ":1::", "1:::2", "::1:", "1:2:3:4:5:6:7",
            "fe80::1%eth0", "::ffff:1.2.3", "1.2.3.4::", "::1.2.3.4:5", "g::1" })
    void refusesEverythingElse(String text) {
        assertThat(IpLiteral.parse(text)).isNull();
    }

    @ParameterizedTest(name = "{0} is {1}")
    @CsvSource(delimiter = '|', value = {
            "203.0.113.9:443         | 203.0.113.9",
            "203.0.113.9:0           | 203.0.113.9",
            "[2001:db8::1]           | 2001:db8:0:0:0:0:0:1",
            "[2001:db8::1]:65535     | 2001:db8:0:0:0:0:0:1",
            "' 2001:db8::1 '         | 2001:db8:0:0:0:0:0:1" })
    void aForwardedHopMayCarryAPortOrBrackets(String hop, String address) throws Exception {
        assertThat(InetAddress.getByAddress(IpLiteral.hop(hop)).getHostAddress()).isEqualTo(address);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = { "203.0.113.9:", "203.0.113.9:65536", "203.0.113.9:80:80", "203.0.113.9:x", "[203.0.113.9]",
            "[2001:db8::1]:", "[2001:db8::1", "2001:db8::1]", "[[2001:db8::1]]", "[cafe]:80", "cafe:80", "_:80" })
    void aHopWithAnythingElseIsNoAddress(String hop) {
        assertThat(IpLiteral.hop(hop)).isNull();
    }

    /**
     * A host name lookup blocks the event loop for as long as DNS takes, and hands the answer to
     * whoever controls the resolver: nothing in the library may resolve a name, not even one
     * that looks like hex digits ({@code cafe}), which {@link InetAddress#getByName} sends to DNS.
     * The one exception is the management port's {@code AllowedHosts}, which asks once, at startup
     * and never for a request, for the machine's own name, as Spring Boot's startup log does.
     */
    @Test
    void nothingInTheLibraryLooksUpAHostName() {
        JavaClasses library = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
                .importPackages("io.queuegate");
        noClasses().that().doNotHaveFullyQualifiedName("io.queuegate.ops.AllowedHosts")
                .should().callMethod(InetAddress.class, "getByName", String.class)
                .orShould().callMethod(InetAddress.class, "getAllByName", String.class)
                .orShould().callMethod(InetAddress.class, "getHostName")
                .orShould().callMethod(InetAddress.class, "getCanonicalHostName")
                .orShould().callMethod(InetSocketAddress.class, "getHostName")
                .orShould().callConstructor(InetSocketAddress.class, String.class, int.class)
                .check(library);
    }
}
