package io.queuegate.config;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A product's name per language ({@code display-names}): a page in a language shows the name in
 * that language and region, else that language, else {@code display-name}; its keys are language
 * tags and its names follow display-name's rules; a product that renames itself drops the route's
 * names in other languages.
 */
class DisplayNamesTest {

    private static QueueSettings named(String displayName, Map<String, String> displayNames) {
        return new QueueSettings(null, null, null, null, null, null, null, null, null, null, null, null, displayName,
                null, null, null, null, null, null, null, null, null, displayNames);
    }

    @Test
    void aPageShowsTheNameInItsLanguageElseDisplayName() {
        QueuePolicy policy = QueuePolicy.from(named("Limited sneakers",
                Map.of("ko", " 한정판 운동화 ", "pt-BR", "Tênis limitado", "pt", "Ténis limitado")));
        assertThat(policy.displayName(Locale.KOREA)).isEqualTo("한정판 운동화");
        assertThat(policy.displayName(Locale.forLanguageTag("pt-BR"))).isEqualTo("Tênis limitado");
        assertThat(policy.displayName(Locale.forLanguageTag("pt-PT"))).isEqualTo("Ténis limitado");
        assertThat(policy.displayName(Locale.FRENCH)).isEqualTo("Limited sneakers");
        assertThat(policy.displayName()).isEqualTo("Limited sneakers");
        assertThat(QueuePolicy.from(named(null, Map.of("ko", "한정판"))).displayName(Locale.ENGLISH)).isNull();
        assertThat(QueuePolicy.from(QueueSettings.EMPTY).displayNames()).isNull();
    }

    @Test
    void aKeyThatIsNoLanguageOrANameDisplayNameWouldRefuseStopsTheGateway() {
        assertThatThrownBy(() -> QueuePolicy.from(named(null, Map.of("korean!", "x"))))
                .hasMessageContaining("display-names").hasMessageContaining("'korean!'");
        assertThatThrownBy(() -> QueuePolicy.from(named(null, Map.of("ko", " "))))
                .hasMessageStartingWith("display-names.ko must not be blank");
        assertThatThrownBy(() -> QueuePolicy.from(named(null, Map.of("ko", "a".repeat(81)))))
                .hasMessageStartingWith("display-names.ko must be at most 80 characters");
        Map<String, String> twice = new LinkedHashMap<>();
        twice.put("ko", "하나");
        twice.put("KO", "둘");
        assertThatThrownBy(() -> QueuePolicy.from(named(null, twice))).hasMessageContaining("given twice");
    }

    @Test
    void aProductThatRenamesItselfDropsTheRoutesNamesInOtherLanguages() {
        QueueSettings route = named("Sneakers", Map.of("ko", "운동화"));
        assertThat(QueuePolicy.from(route.overriddenBy(named("Winter jacket", null))).displayName(Locale.KOREAN))
                .isEqualTo("Winter jacket");
        assertThat(QueuePolicy.from(route.overriddenBy(named("Winter jacket", Map.of("ko", "겨울 재킷"))))
                .displayName(Locale.KOREAN)).isEqualTo("겨울 재킷");
        assertThat(QueuePolicy.from(route.overriddenBy(named(null, null))).displayName(Locale.KOREAN))
                .as("an override that names nothing keeps the route's names").isEqualTo("운동화");
    }
}
