package io.queuegate.store;

import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.queuegate.support.Draw;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DrawSeedTest {

    private static final String SECRET = "a-token-secret-of-at-least-32-bytes-0123456789";
    private static final Instant OPENS = Instant.parse("2026-12-24T10:00:00Z");

    @Test
    void aSaleSeedIs256BitsWrittenAs64HexDigitsAndEachSaleHasItsOwn() {
        DrawSeeds seeds = new DrawSeeds(SECRET, List.of());
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 1_000; i++) {
            DrawSeed sale = seeds.forSale("p" + (i % 100), OPENS.plusSeconds(i / 100));
            assertThat(sale.seed()).matches("[0-9a-f]{64}");
            seen.add(sale.seed());
        }
        assertThat(seen).as("no two sales share a seed").hasSize(1_000);
    }

    @Test
    void aSaleSeedIsWorkedOutAgainOnlyWithTheGatewaysKeyAndMatchesItsCommitment() {
        DrawSeed sale = new DrawSeeds(SECRET, List.of()).forSale("42", OPENS);
        assertThat(new DrawSeeds(SECRET, List.of()).forSale("42", OPENS)).as("the same on every gateway").isEqualTo(sale);
        assertThat(new DrawSeeds(SECRET + "x", List.of()).forSale("42", OPENS).seed())
                .as("nobody without the key can tell it").isNotEqualTo(sale.seed());
        DrawSeeds rotated = new DrawSeeds(SECRET + "-new-secret", List.of(SECRET));
        assertThat(rotated.recover("42", OPENS, sale.commitment()))
                .as("after a rotation, by its commitment under the previous key").isEqualTo(sale);
        assertThat(rotated.recover("42", OPENS, Draw.commitment("a random seed of the release before"))).isNull();
    }

    @Test
    void theCommitmentIsTheSha256OfTheSeedsTextAsTheDocsSayToCheckIt() {
        // FIPS 180-2's example: SHA-256 of the three ASCII bytes "abc".
        assertThat(DrawSeed.commitmentOf("abc"))
                .isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        DrawSeed drawn = new DrawSeeds(SECRET, List.of()).forSale("7", OPENS);
        assertThat(drawn.commitment()).matches("[0-9a-f]{64}").isEqualTo(Draw.commitment(drawn.seed()));
        // The text of the hex digits is hashed, not the 32 bytes they stand for.
        assertThat(DrawSeed.of("00").commitment()).isNotEqualTo(DrawSeed.commitmentOf("\0"));
    }

    @Test
    void aSeedWithoutAMatchingShapeOfCommitmentIsRefused() {
        assertThatThrownBy(() -> new DrawSeed("", DrawSeed.commitmentOf(""))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new DrawSeed("4711", "4711")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new DrawSeed("4711", DrawSeed.commitmentOf("4711").toUpperCase()))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
