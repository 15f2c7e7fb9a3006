package io.queuegate.paths;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

class CanonicalPathsTest {

    @ParameterizedTest
    @ValueSource(strings = { "/", "/api/products/42", "/api/products/42/orders", "/a/b.c/d..e/.hidden",
            "/caf%C3%A9", "/with%20space", "/q%3Fx", "/a-b_c~d", "/x/", "/api/products/42/orders/" })
    void canonicalPathsPass(String path) {
        assertThat(CanonicalPaths.problem(path)).as(path).isNull();
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
            "//api/products/42 | empty segments",
            "/api/products/42//orders | empty segments",
            "/api//products | empty segments",
            "/api/products/42/./orders | '.' or '..'",
            "/api/products/42/x/../orders | '.' or '..'",
            "/.. | '.' or '..'",
            "/api/. | '.' or '..'",
            "/api/products/42%2Forders | encoded",
            "/api/products/42%2forders | encoded",
            "/api/products/42%5Corders | encoded",
            "/api/%2E/orders | encoded",
            "/api/%2e%2e/orders | encoded",
            "/api/products/42%252F | encoded",
            "/api/products/42%3Bx | encoded",
            "/api/products/42%00 | encoded",
            "/api/products/42%0D%0A | encoded",
            "/api/products/42%7F | encoded",
            "/api/products/42% | encoded",
            "/api/products/42%zz | encoded",
            "/api/products/42;jsessionid=1 | ';'",
            "api/products/42 | start with '/'" })
    void everyOtherSpellingHasAProblem(String path, String problem) {
        assertThat(CanonicalPaths.problem(path)).as(path).contains(problem);
    }

    @ParameterizedTest
    @ValueSource(strings = { "/a\\b", "/a b", "/a\tb", "/caf\u00e9" })
    void rawBackslashesAndNonPrintableCharactersHaveAProblem(String path) {
        assertThat(CanonicalPaths.problem(path)).as(path).isNotNull();
    }

    @ParameterizedTest
    @CsvSource({ "/, false", "/a, false", "/a/, true", "/api/products/42/orders/, true" })
    void aTrailingSlashIsOneAfterASegment(String path, boolean trailing) {
        assertThat(CanonicalPaths.hasTrailingSlash(path)).isEqualTo(trailing);
    }
}
