package io.queuegate.store;

import java.util.HashSet;
import java.util.Set;

import io.queuegate.support.Draw;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DrawSeedTest {

    @Test
    void aSeedIs256RandomBitsWrittenAs64HexDigits() {
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 1_000; i++) {
            DrawSeed drawn = DrawSeed.random();
            assertThat(drawn.seed()).matches("[0-9a-f]{64}");
            seen.add(drawn.seed());
        }
        assertThat(seen).as("no seed twice in a thousand").hasSize(1_000);
    }

    @Test
    void theCommitmentIsTheSha256OfTheSeedsTextAsTheDocsSayToCheckIt() {
        // FIPS 180-2's example: SHA-256 of the three ASCII bytes "abc".
        assertThat(DrawSeed.commitmentOf("abc"))
                .isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        DrawSeed drawn = DrawSeed.random();
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
