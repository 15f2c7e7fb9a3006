package io.queuegate.demo.shop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

class StockTest {

    @Test
    void neverSellsMoreThanTheStock() throws Exception {
        int threads = 8;
        int attempts = 10_000;
        Stock stock = new Stock(1000);
        // a start gate, so that the threads really overlap instead of running one after another as they are created
        CountDownLatch start = new CountDownLatch(1);
        List<Callable<Integer>> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            workers.add(() -> {
                start.await();
                int sold = 0;
                for (int i = 0; i < attempts / threads; i++) {
                    if (stock.tryTake(1).isPresent()) {
                        sold++;
                    }
                }
                return sold;
            });
        }
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (Callable<Integer> worker : workers) {
                results.add(pool.submit(worker));
            }
            start.countDown();
            int sold = 0;
            for (Future<Integer> result : results) {
                sold += result.get(30, TimeUnit.SECONDS);
            }

            assertThat(sold).isEqualTo(1000);
            assertThat(stock.remaining()).isZero();
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void returnsWhatIsLeftRightAfterTheTake() {
        Stock stock = new Stock(5);

        assertThat(stock.tryTake(3)).hasValue(2);
        assertThat(stock.tryTake(2)).hasValue(0);
    }

    @Test
    void takesNothingWhenNotEnoughIsLeft() {
        Stock stock = new Stock(2);

        assertThat(stock.tryTake(3)).isEmpty();
        assertThat(stock.remaining()).isEqualTo(2);
    }

    @Test
    void rejectsNonPositiveQuantitiesAndNegativeStock() {
        Stock stock = new Stock(1);

        assertThatIllegalArgumentException().isThrownBy(() -> stock.tryTake(0));
        assertThatIllegalArgumentException().isThrownBy(() -> new Stock(-1));
        assertThat(stock.remaining()).isEqualTo(1);
    }
}
