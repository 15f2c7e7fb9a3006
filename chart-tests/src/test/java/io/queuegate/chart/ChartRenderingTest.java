package io.queuegate.chart;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import static io.queuegate.chart.Manifests.at;
import static io.queuegate.chart.Manifests.list;
import static io.queuegate.chart.Manifests.map;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

/**
 * Renders the QueueGate chart with each value set of {@code helm/queuegate/ci} and checks the
 * parsed manifests, including the application.yaml the gateway will read.
 */
class ChartRenderingTest {

    private static final String GATEWAY = "qg-queuegate";
    private static final String CI_SECRET = "ci-only-token-secret-not-for-production-0123456789";

    private static Helm helm;

    @BeforeAll
    static void findHelm() {
        helm = Helm.find();
    }

    private static Manifests render(String valuesFile, String... more) {
        String[] args = new String[more.length + 2];
        args[0] = "-f";
        args[1] = helm.chart("queuegate").resolve(valuesFile).toString();
        System.arraycopy(more, 0, args, 2, more.length);
        return helm.template(args);
    }

    private static Map<String, Object> secretKeyRef(Manifests manifests, String env) {
        return map(manifests.env(env).orElseThrow(() -> new AssertionError("no env " + env)), "valueFrom.secretKeyRef");
    }

    private static String decoded(Manifests manifests, String secret, String key) {
        String value = (String) at(manifests.get("Secret", secret), "data." + key);
        assertThat(value).as("key %s of Secret %s", key, secret).isNotNull();
        return new String(Base64.getDecoder().decode(value), StandardCharsets.UTF_8);
    }

    @Nested
    class WithTheSmallestValues {

        private final Manifests manifests = render("ci/default-values.yaml");

        @Test
        void gatewayContainerRunsAsNonRootOnAReadOnlyFilesystemWithoutCapabilities() {
            Map<String, Object> security = map(manifests.gatewayContainer(), "securityContext");

            assertThat(security).contains(entry("runAsNonRoot", true), entry("runAsUser", 10001),
                    entry("readOnlyRootFilesystem", true), entry("allowPrivilegeEscalation", false),
                    entry("privileged", false));
            assertThat(list(security, "capabilities.drop")).containsExactly("ALL");
            assertThat(at(security, "seccompProfile.type")).isEqualTo("RuntimeDefault");
            assertThat(at(manifests.get("Deployment", GATEWAY), "spec.template.spec.securityContext.seccompProfile.type"))
                    .isEqualTo("RuntimeDefault");
        }

        @Test
        void tmpIsAWritableEmptyDirBecauseTheRootFilesystemIsReadOnly() {
            Map<String, Object> pod = map(manifests.get("Deployment", GATEWAY), "spec.template.spec");

            assertThat(list(manifests.gatewayContainer(), "volumeMounts"))
                    .contains(Map.of("name", "tmp", "mountPath", "/tmp"));
            assertThat(list(pod, "volumes")).anySatisfy(volume -> {
                assertThat(at(volume, "name")).isEqualTo("tmp");
                assertThat(at(volume, "emptyDir")).isNotNull();
            });
        }

        @Test
        void probesAskTheActuatorLivenessAndReadinessGroups() {
            Map<String, Object> container = manifests.gatewayContainer();

            assertThat(at(container, "livenessProbe.httpGet")).isEqualTo(Map.of("path", "/actuator/health/liveness", "port", "management"));
            assertThat(at(container, "readinessProbe.httpGet")).isEqualTo(Map.of("path", "/actuator/health/readiness", "port", "management"));
            assertThat(at(container, "startupProbe.httpGet.path")).isEqualTo("/actuator/health/liveness");
            assertThat(map(container, "livenessProbe")).containsKeys("periodSeconds", "timeoutSeconds", "failureThreshold")
                    .doesNotContainKeys("enabled", "path");
            assertThat(at(manifests.applicationConfig(), "management.endpoint.health.probes.enabled")).isEqualTo(true);
        }

        @Test
        void podsCarryAChecksumOfTheirConfigSoAConfigChangeRollsThem() {
            String checksum = (String) at(manifests.get("Deployment", GATEWAY), "spec.template.metadata.annotations.checksum/config");
            Manifests otherRoutes = render("ci/default-values.yaml", "--set-json",
                    "routes=[{\"id\":\"r\",\"uri\":\"http://shop:8080\",\"predicates\":[\"Path=/**\"]}]");
            Manifests otherReplicas = render("ci/default-values.yaml", "--set", "replicaCount=3");

            assertThat(checksum).matches("[0-9a-f]{64}");
            assertThat(at(otherRoutes.get("Deployment", GATEWAY), "spec.template.metadata.annotations.checksum/config"))
                    .isNotEqualTo(checksum);
            assertThat(at(otherReplicas.get("Deployment", GATEWAY), "spec.template.metadata.annotations.checksum/config"))
                    .isEqualTo(checksum);
        }

        @Test
        void podDisruptionBudgetIsOnAndLetsOnePodGo() {
            Map<String, Object> pdb = manifests.get("PodDisruptionBudget", GATEWAY);

            assertThat(at(pdb, "spec.maxUnavailable")).isEqualTo(1);
            assertThat(map(manifests.get("Deployment", GATEWAY), "spec.template.metadata.labels"))
                    .containsAllEntriesOf(map(pdb, "spec.selector.matchLabels"));
        }

        @Test
        void tokenSecretReachesTheContainerFromTheChartsSecretAndNeverTheConfigMap() {
            assertThat(secretKeyRef(manifests, "QUEUEGATE_TOKEN_SECRET"))
                    .isEqualTo(Map.of("name", GATEWAY, "key", "token-secret"));
            assertThat(decoded(manifests, GATEWAY, "token-secret")).isEqualTo(CI_SECRET);
            assertThat((String) at(manifests.get("ConfigMap", GATEWAY), "data.application\\.yaml")).doesNotContain(CI_SECRET);
            assertThat(at(manifests.get("Deployment", GATEWAY), "spec.template.metadata.annotations.checksum/secret"))
                    .asString().matches("[0-9a-f]{64}");
        }

        @Test
        void gatewayReadsTheRenderedConfigOnTopOfItsOwn() {
            assertThat(manifests.env("SPRING_CONFIG_ADDITIONAL_LOCATION")).hasValueSatisfying(
                    env -> assertThat(env.get("value")).isEqualTo("file:/etc/queuegate/application.yaml"));
            assertThat(list(manifests.gatewayContainer(), "volumeMounts"))
                    .contains(Map.of("name", "config", "mountPath", "/etc/queuegate", "readOnly", true));
        }

        @Test
        void redisIsStandaloneWithoutPasswordAndNeverEmbedded() {
            Map<String, Object> config = manifests.applicationConfig();

            assertThat(map(config, "spring.data.redis")).containsOnlyKeys("host", "port", "database", "timeout")
                    .contains(entry("host", "redis-master.redis.svc.cluster.local"), entry("port", 6379));
            assertThat(at(config, "queuegate.redis.embedded")).isEqualTo(false);
            assertThat(manifests.env("SPRING_DATA_REDIS_PASSWORD")).isEmpty();
        }

        @Test
        void oneReplicaAndNothingOptionalIsRendered() {
            assertThat(at(manifests.get("Deployment", GATEWAY), "spec.replicas")).isEqualTo(1);
            // The NetworkPolicy is on by default: it closes the management port to all but Prometheus' namespace.
            assertThat(manifests.names()).containsExactlyInAnyOrder("Deployment/" + GATEWAY, "Service/" + GATEWAY,
                    "Service/" + GATEWAY + "-management", "ConfigMap/" + GATEWAY, "Secret/" + GATEWAY, "ServiceAccount/" + GATEWAY,
                    "PodDisruptionBudget/" + GATEWAY, "NetworkPolicy/" + GATEWAY);
        }

        @Test
        void serviceSendsTrafficToTheGatewayPodsHttpPort() {
            Map<String, Object> service = manifests.get("Service", GATEWAY);

            assertThat(at(service, "spec.ports")).isEqualTo(List.of(Map.of("name", "http", "port", 80,
                    "targetPort", "http", "protocol", "TCP")));
            assertThat(map(manifests.get("Deployment", GATEWAY), "spec.template.metadata.labels"))
                    .containsAllEntriesOf(map(service, "spec.selector"));
        }
    }

    @Nested
    class WithRoutesAndProducts {

        private final Manifests manifests = render("ci/routes-values.yaml");

        @Test
        void routesAreRenderedWhereTheGatewayBindsThemWithTheirQueueBlocks() {
            Map<String, Object> config = manifests.applicationConfig();
            List<Object> routes = list(config, "spring.cloud.gateway.server.webflux.routes");

            assertThat(routes).extracting(route -> at(route, "id")).containsExactly("shop-products", "shop-everything-else");
            assertThat(map(routes.get(0), "metadata.queue")).containsExactlyInAnyOrderEntriesOf(Map.of(
                    "max-active", 10, "session-ttl", "10m", "promotion", "pubsub",
                    "complete-on", "POST /api/products/{productId}/orders", "on-redis-failure", "closed"));
            assertThat(list(routes.get(0), "predicates")).containsExactly("Path=/api/products/{productId}/**");
            assertThat(at(routes.get(1), "metadata")).isNull();
            assertThat(at(config, "spring.cloud.gateway.routes")).as("the old, silently ignored key").isNull();
        }

        @Test
        void productOverridesAreRenderedUnderQueuegateProducts() {
            Map<String, Object> products = map(manifests.applicationConfig(), "queuegate.products");

            assertThat(products).containsOnlyKeys("42", "7");
            assertThat(map(products, "42")).isEqualTo(Map.of("max-active", 2, "session-ttl", "5m"));
            assertThat(map(products, "7")).isEqualTo(Map.of("max-active", 50, "on-redis-failure", "open"));
        }

        @Test
        void globalSettingsUseThePropertyNamesOfTheReadme() {
            Map<String, Object> queuegate = map(manifests.applicationConfig(), "queuegate");

            assertThat(queuegate).contains(entry("enabled", true))
                    .doesNotContainKey("user-id-header");
            assertThat(map(queuegate, "identity")).isEqualTo(Map.of("source", "header", "header", "X-Customer-Id"));
            assertThat(list(queuegate, "trusted-proxies")).containsExactly("10.0.0.0/8", "192.168.1.7");
            assertThat(at(queuegate, "token.ttl")).isEqualTo("2h");
            assertThat(at(queuegate, "scheduler.interval")).isEqualTo("5s");
            assertThat(at(queuegate, "safety-net.interval")).isEqualTo("30s");
            assertThat(at(queuegate, "redis.timeout")).isEqualTo("2s");
            assertThat(map(queuegate, "token")).doesNotContainKey("secret");
        }

        @Test
        void previousTokenSecretsReachTheContainerAsAnIndexedList() {
            assertThat(secretKeyRef(manifests, "QUEUEGATE_TOKEN_PREVIOUSSECRETS_0"))
                    .isEqualTo(Map.of("name", GATEWAY, "key", "previous-token-secret-0"));
            assertThat(decoded(manifests, GATEWAY, "previous-token-secret-0"))
                    .isEqualTo("ci-only-previous-token-secret-0123456789abcdef");
        }

        @Test
        void extraConfigIsMergedIntoTheRenderedConfig() {
            assertThat(at(manifests.applicationConfig(), "logging.level.io\\.queuegate")).isEqualTo("DEBUG");
        }

        @Test
        void serviceMonitorScrapesThePrometheusEndpointOnTheManagementPort() {
            Map<String, Object> monitor = manifests.get("ServiceMonitor", GATEWAY);

            assertThat(list(monitor, "spec.endpoints")).containsExactly(
                    Map.of("port", "management", "path", "/actuator/prometheus", "interval", "30s"));
            assertThat(at(manifests.applicationConfig(), "management.endpoints.web.exposure.include").toString().split(","))
                    .contains("prometheus");
        }
    }

    @Test
    void twoReplicasAreRenderedWithoutAnAutoscaler() {
        Manifests manifests = render("ci/default-values.yaml", "--set", "replicaCount=2");

        assertThat(at(manifests.get("Deployment", GATEWAY), "spec.replicas")).isEqualTo(2);
        assertThat(manifests.ofKind("HorizontalPodAutoscaler")).isEmpty();
    }

    @Test
    void autoscalerOwnsTheReplicaCountWhenEnabled() {
        Manifests manifests = render("ci/two-replicas-hpa-values.yaml");
        Map<String, Object> hpa = manifests.get("HorizontalPodAutoscaler", GATEWAY);

        assertThat(map(manifests.get("Deployment", GATEWAY), "spec")).doesNotContainKey("replicas");
        assertThat(map(hpa, "spec")).contains(entry("minReplicas", 2), entry("maxReplicas", 6));
        assertThat(at(hpa, "spec.scaleTargetRef")).isEqualTo(Map.of("apiVersion", "apps/v1", "kind", "Deployment", "name", GATEWAY));
        assertThat(list(hpa, "spec.metrics")).hasSize(1)
                .first().satisfies(metric -> assertThat(at(metric, "resource.target.averageUtilization")).isEqualTo(60));
        assertThat(map(manifests.get("PodDisruptionBudget", GATEWAY), "spec")).containsEntry("minAvailable", 1)
                .doesNotContainKey("maxUnavailable");
    }

    @Test
    void sentinelModeRendersMasterAndNodesWithTlsAndAPasswordFromAnExistingSecret() {
        Manifests manifests = render("ci/sentinel-values.yaml");
        Map<String, Object> redis = map(manifests.applicationConfig(), "spring.data.redis");

        assertThat(redis).doesNotContainKeys("host", "port", "cluster");
        assertThat(map(redis, "sentinel")).isEqualTo(Map.of("master", "queuegate",
                "nodes", "sentinel-0.redis:26379,sentinel-1.redis:26379,sentinel-2.redis:26379"));
        assertThat(at(redis, "ssl.enabled")).isEqualTo(true);
        assertThat(secretKeyRef(manifests, "SPRING_DATA_REDIS_PASSWORD"))
                .isEqualTo(Map.of("name", "redis-credentials", "key", "password"));
        assertThat(map(manifests.get("Secret", GATEWAY), "data")).containsOnlyKeys("token-secret");
    }

    @Test
    void clusterModeRendersTheNodesAndKeepsThePasswordInTheChartsSecret() {
        Manifests manifests = render("ci/cluster-values.yaml");
        Map<String, Object> redis = map(manifests.applicationConfig(), "spring.data.redis");

        assertThat(redis).doesNotContainKeys("host", "port", "database", "sentinel", "ssl");
        assertThat(map(redis, "cluster")).isEqualTo(Map.of(
                "nodes", "redis-cluster-0.redis:6379,redis-cluster-1.redis:6379,redis-cluster-2.redis:6379",
                "max-redirects", 3));
        assertThat(redis).containsEntry("username", "queuegate");
        assertThat(secretKeyRef(manifests, "SPRING_DATA_REDIS_PASSWORD"))
                .isEqualTo(Map.of("name", GATEWAY, "key", "redis-password"));
        assertThat(decoded(manifests, GATEWAY, "redis-password")).isEqualTo("ci-only-redis-password");
        assertThat((String) at(manifests.get("ConfigMap", GATEWAY), "data.application\\.yaml"))
                .doesNotContain("ci-only-redis-password");
    }

    @Test
    void existingTokenSecretIsReferencedAndTheChartCreatesNoSecret() {
        Manifests manifests = render("ci/existing-secret-values.yaml");

        assertThat(secretKeyRef(manifests, "QUEUEGATE_TOKEN_SECRET"))
                .isEqualTo(Map.of("name", "queuegate-token", "key", "secret"));
        assertThat(manifests.ofKind("Secret")).isEmpty();
        assertThat(map(manifests.get("Deployment", GATEWAY), "spec.template.metadata.annotations"))
                .containsKey("checksum/config").doesNotContainKey("checksum/secret");
    }

    @Test
    void ingressRoutesItsHostToTheGatewayServiceWithTls() {
        Manifests manifests = render("ci/ingress-values.yaml");
        Map<String, Object> ingress = manifests.get("Ingress", GATEWAY);

        assertThat(at(ingress, "spec.ingressClassName")).isEqualTo("nginx");
        assertThat(list(ingress, "spec.tls")).containsExactly(
                Map.of("secretName", "shop-example-com-tls", "hosts", List.of("shop.example.com")));
        Object rule = list(ingress, "spec.rules").get(0);
        assertThat(at(rule, "host")).isEqualTo("shop.example.com");
        assertThat(at(list(rule, "http.paths").get(0), "backend.service"))
                .isEqualTo(Map.of("name", GATEWAY, "port", Map.of("name", "http")));
    }

    @Test
    void ingressTrustsTheProxiesItIsGivenAndRendersWithoutThemOnlyWhenToldTo() {
        assertThat(map(render("ci/ingress-values.yaml").applicationConfig(), "queuegate"))
                .containsEntry("trusted-proxies", List.of("10.0.0.0/8"));

        Manifests optedOut = render("ci/default-values.yaml", "--set", "ingress.enabled=true",
                "--set", "ingress.allowWithoutTrustedProxies=true");
        assertThat(optedOut.get("Ingress", GATEWAY)).isNotNull();
        assertThat(map(optedOut.applicationConfig(), "queuegate")).doesNotContainKey("trusted-proxies");
    }

    @Test
    void devRedisRunsBesideTheGatewayWhichConnectsToIt() {
        Manifests manifests = render("ci/dev-redis-values.yaml");
        Map<String, Object> redisDeployment = manifests.get("Deployment", "qg-queuegate-dev-redis");
        Map<String, Object> redisService = manifests.get("Service", "qg-queuegate-dev-redis");
        Map<String, Object> redisContainer = Manifests.asMap(list(redisDeployment, "spec.template.spec.containers").get(0));

        assertThat(map(manifests.applicationConfig(), "spring.data.redis"))
                .contains(entry("host", "qg-queuegate-dev-redis"), entry("port", 6379));
        assertThat(map(redisDeployment, "spec.template.metadata.labels")).containsAllEntriesOf(map(redisService, "spec.selector"));
        assertThat(map(redisDeployment, "spec.template.metadata.labels"))
                .as("the gateway Service must not send shoppers to Redis")
                .doesNotContainEntry("app.kubernetes.io/component", "gateway");
        assertThat(list(redisContainer, "args")).containsSequence("--notify-keyspace-events", "Ex");
        assertThat(map(redisContainer, "securityContext")).contains(entry("runAsNonRoot", true),
                entry("readOnlyRootFilesystem", true), entry("allowPrivilegeEscalation", false));
    }

    @Test
    void demoValuesPointTheGatewayAtTheDemoShopChartsService() {
        Manifests gateway = helm.template("-f", helm.chart("queuegate").resolve("examples/demo-values.yaml").toString());
        Manifests shop = helm.templateOf("demo-shop", "demo-shop");
        Map<String, Object> shopService = shop.get("Service", "demo-shop");

        Object route = list(gateway.applicationConfig(), "spring.cloud.gateway.server.webflux.routes").get(0);
        assertThat(at(route, "uri")).isEqualTo("http://demo-shop:" + at(list(shopService, "spec.ports").get(0), "port"));
        assertThat(map(gateway.applicationConfig(), "queuegate.products")).containsOnlyKeys("42", "7");
        assertThat(gateway.find("Deployment", "qg-queuegate-dev-redis")).isPresent();
        // the demo's callers name themselves with X-User-Id through kubectl port-forward, i.e. from loopback
        assertThat(map(gateway.applicationConfig(), "queuegate.identity")).isEqualTo(Map.of("source", "header", "header", "X-User-Id"));
        assertThat(list(gateway.applicationConfig(), "queuegate.trusted-proxies")).contains("127.0.0.1/32");
        assertThat(at(Manifests.asMap(list(shop.get("Deployment", "demo-shop"), "spec.template.spec.containers").get(0)),
                "securityContext.runAsNonRoot")).isEqualTo(true);
    }
}
