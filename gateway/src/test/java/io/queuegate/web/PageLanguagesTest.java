package io.queuegate.web;

import java.time.Clock;
import java.util.List;
import java.util.Locale;

import org.junit.jupiter.api.Test;
import org.springframework.context.support.ResourceBundleMessageSource;
import org.springframework.core.io.ClassPathResource;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The pages' language switch: the shopper's choice (its cookie) wins over the browser's language
 * when it is a language on offer; each link names its language in that language, comes back to
 * the page's own address, and marks the page's language as the current one.
 */
class PageLanguagesTest {

    private final PageLanguages languages = PageLanguages.SHIPPED;

    @Test
    void theShoppersChoiceWinsOverTheBrowsersLanguageWhenItIsOnOffer() {
        MockServerHttpRequest chosen = MockServerHttpRequest.get("/api/products/42")
                .cookie(new org.springframework.http.HttpCookie(PageLanguages.COOKIE, "ko")).build();
        assertThat(languages.of(chosen, Locale.US)).isEqualTo(Locale.KOREAN);

        MockServerHttpRequest unknown = MockServerHttpRequest.get("/api/products/42")
                .cookie(new org.springframework.http.HttpCookie(PageLanguages.COOKIE, "fr")).build();
        assertThat(languages.of(unknown, Locale.US)).as("not on offer: the browser's").isEqualTo(Locale.US);
        assertThat(languages.of(MockServerHttpRequest.get("/").build(), Locale.KOREA)).isEqualTo(Locale.KOREA);
        assertThat(languages.offered("KO")).isEqualTo(Locale.KOREAN);
        assertThat(languages.offered("<script>")).isNull();
    }

    @Test
    void eachLinkNamesItsLanguageInThatLanguageAndComesBackToThePage() {
        String nav = languages.markup(Locale.KOREA, "/api/products/42?size=9", "언어");
        assertThat(nav).isEqualTo("<nav class=\"languages\" aria-label=\"언어\"><ul>"
                + "<li><a href=\"/queue/language/en?back=%2Fapi%2Fproducts%2F42%3Fsize%3D9\" hreflang=\"en\" lang=\"en\">"
                + "English</a></li>"
                + "<li><a href=\"/queue/language/ko?back=%2Fapi%2Fproducts%2F42%3Fsize%3D9\" hreflang=\"ko\" lang=\"ko\""
                + " aria-current=\"true\">한국어</a></li></ul></nav>");
        assertThat(languages.markup(Locale.ENGLISH, null, "Language")).contains("href=\"/queue/language/ko\"");
        assertThat(new PageLanguages(List.of("en")).markup(Locale.ENGLISH, "/", "Language")).as("nothing to switch to")
                .isEmpty();
    }

    @Test
    void aTagThatIsNoLanguageStopsTheGateway() {
        assertThatThrownBy(() -> new PageLanguages(List.of("en", "123"))).hasMessageContaining("queuegate.page.languages")
                .hasMessageContaining("'123'");
    }

    @Test
    void thePagesCarryTheSwitchAndTheLeaveForm() {
        ResourceBundleMessageSource messages = new ResourceBundleMessageSource();
        messages.setBasenames("queuegate/messages");
        messages.setDefaultEncoding("UTF-8");
        messages.setFallbackToSystemLocale(false);
        WaitingPage page = new WaitingPage(new ClassPathResource("queuegate/waiting-page.html"),
                new ClassPathResource("queuegate/unavailable-page.html"),
                new ClassPathResource("queuegate/challenge-page.html"), messages, PageBranding.NONE, Clock.systemUTC());
        PageRequest request = new PageRequest(Locale.KOREAN, "/api/products/42");
        String waiting = page.render("42", "한정판 운동화", 30, 120L, 5, null, null, null, 50, request);
        assertThat(waiting).contains("<nav class=\"languages\" aria-label=\"언어\">")
                .contains("<form method=\"post\" action=\"/queue/42/leave\">")
                .contains("<input type=\"hidden\" name=\"back\" value=\"/api/products/42\">")
                .contains("<progress id=\"progress\" max=\"100\" value=\"41\">")
                .contains("data-start=\"50\"")
                .contains("<span class=\"said\" id=\"rank-said\">현재 대기 순번은 30번입니다.</span>")
                .doesNotContain("{{");
        assertThat(page.renderNotice(WaitingPage.Notice.UNAVAILABLE, 5, request)).contains("aria-label=\"언어\"")
                .contains("<noscript><meta http-equiv=\"refresh\" content=\"5\"></noscript>").doesNotContain("{{");
        assertThat(page.renderLeft("한정판 운동화", request)).contains("한정판 운동화 대기열의 자리를 반납했습니다.")
                .contains("<a href=\"/api/products/42\">다시 줄 서기 (맨 뒤부터)</a>").doesNotContain("{{");
        assertThat(page.renderChallenge("{}", -1, request)).contains("aria-label=\"언어\"").doesNotContain("{{");
        assertThat(page.renderSoldOut("한정판 운동화", false, request)).contains("<title>품절되었습니다</title>")
                .contains("한정판 운동화 상품이 모두 판매되었습니다.").doesNotContain("자리는 그대로");
        assertThat(page.renderSoldOut("Limited sneakers", true, PageRequest.of(Locale.ENGLISH)))
                .contains("Limited sneakers has sold out").contains("Your place is kept");
    }

    @Test
    void progressRunsFromTheRankOnArrivalToTheFront() {
        assertThat(LinePage.progress(50, 50)).isZero();
        assertThat(LinePage.progress(50, 30)).isEqualTo(41);
        assertThat(LinePage.progress(50, 1)).isEqualTo(100);
        assertThat(LinePage.progress(1, 1)).as("arrived at the front").isEqualTo(100);
    }
}
