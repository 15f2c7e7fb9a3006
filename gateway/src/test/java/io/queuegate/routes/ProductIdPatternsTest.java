package io.queuegate.routes;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two routes' product-id-patterns are apart only when their literal beginnings differ; whatever
 * the small proof cannot read may overlap.
 */
class ProductIdPatternsTest {

    @ParameterizedTest(name = "{0} and {1}: apart")
    @CsvSource(delimiterString = " ; ", value = {
            "A[0-9]+ ; B[0-9]+",
            "rd1 ; rd2",
            "drop-[0-9]+ ; sale-[0-9]+",
            "sku_1[0-9]* ; sku_2.*",
            "42 ; 43",
    })
    void patternsWithDifferentLiteralBeginningsAreApart(String first, String second) {
        assertThat(ProductIdPatterns.mayOverlap(first, second)).isFalse();
        assertThat(ProductIdPatterns.mayOverlap(second, first)).isFalse();
    }

    @ParameterizedTest(name = "{0} and {1}: may overlap")
    @CsvSource(delimiterString = " ; ", nullValues = "none", value = {
            // No pattern: any id.
            "none ; A[0-9]+",
            "none ; none",
            // One beginning is the other's start, or one has none.
            "A[0-9]+ ; A1[0-9]*",
            "rd1 ; rd10",
            "[0-9]+ ; 7",
            "A[0-9]+ ; .*",
            // Case: an id may be folded to lower case before it is matched.
            "A[0-9]+ ; a[0-9]+",
            // Alternations, optional or repeated characters, escapes, groups and flags hide the start.
            "A1|B2 ; B[0-9]",
            "AB?[0-9] ; A[0-9]",
            "AB*C ; AC",
            "AB{0,1}C ; AC",
            "\\QB\\E1 ; A1",
            "(?i)a1 ; A1",
            "(B)1 ; A1",
            "^B1 ; A1",
    })
    void whatTheProofCannotReadMayOverlap(String first, String second) {
        assertThat(ProductIdPatterns.mayOverlap(first, second)).isTrue();
        assertThat(ProductIdPatterns.mayOverlap(second, first)).isTrue();
    }

    @ParameterizedTest(name = "{0} starts with \"{1}\"")
    @CsvSource(delimiterString = " ; ", nullValues = "none", value = {
            "A[0-9]+ ; A",
            "drop-7 ; drop-7",
            "AB?C ; A",
            "AB+C ; A",
            "A.B ; A",
            "A|B ; ''",
            "none ; ''",
    })
    void theLiteralStartEndsAtTheFirstConstruct(String pattern, String start) {
        assertThat(ProductIdPatterns.literalStart(pattern)).isEqualTo(start);
    }
}
