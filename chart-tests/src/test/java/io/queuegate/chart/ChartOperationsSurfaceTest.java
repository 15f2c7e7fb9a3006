package io.queuegate.chart;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static io.queuegate.chart.Manifests.at;
import static io.queuegate.chart.Manifests.list;
import static io.queuegate.chart.Manifests.map;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What of the gateway the chart lets reach whom. Shoppers get the routes and the waiting room on
 * the http port, through the Service and the Ingress; the actuator, with {@code /actuator/queues}
 * able to pause or resize a queue, stays on the management port behind its own ClusterIP Service.
 * The NetworkPolicy (on by default) admits only Prometheus' namespace to that port, a change there
 * needs the operator's login and one of the pod's or the management Service's names as its Host.
 * Rendered from the chart's defaults plus the two values a minimal install needs.
 */
class ChartOperationsSurfaceTest {

    private static final String GATEWAY = "qg-queuegate";
    private static final String MANAGEMENT = "qg-queuegate-management";
    private static final Map<String, Object> MONITORING_NAMESPACE =
            Map.of("namespaceSelector", Map.of("matchLabels", Map.of("kubernetes.io/metadata.name", "monitoring")));

    private static Helm helm;
    private static Manifests defaults;

    @BeforeAll
    static void renderTheDefaults() {
        helm = Helm.find();
        defaults = render();
    }

    private static Manifests render(String... more) {
        return helm.template(withMinimalValues(more));
    }

    private static String[] withMinimalValues(String... more) {
        List<String> args = new ArrayList<>(List.of(
                "--set", "queuegate.token.secret=ci-only-token-secret-not-for-production-0123456789",
                "--set", "redis.host=redis"));
        args.addAll(Arrays.asList(more));
        return args.toArray(String[]::new);
    }

    private static Map<String, Object> containerPort(Manifests manifests, String name) {
        return list(manifests.gatewayContainer(), "ports").stream()
                .map(Manifests::asMap)
                .filter(port -> name.equals(port.get("name")))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no container port " + name));
    }

    /** The NetworkPolicy's ingress rules that admit traffic to this port number. */
    private static List<Map<String, Object>> rulesFor(Map<String, Object> policy, int port) {
        return list(policy, "spec.ingress").stream()
                .map(Manifests::asMap)
                .filter(rule -> list(rule, "ports").stream().anyMatch(p -> Integer.valueOf(port).equals(at(p, "port"))))
                .toList();
    }

    @Test
    void podDeclaresTheShopperAndTheManagementPorts() {
        assertThat(list(defaults.gatewayContainer(), "ports")).containsExactly(
                Map.of("name", "http", "containerPort", 8080, "protocol", "TCP"),
                Map.of("name", "management", "containerPort", 9090, "protocol", "TCP"));
    }

    @Test
    void probesUseTheManagementPort() {
        Map<String, Object> container = defaults.gatewayContainer();

        for (String probe : List.of("livenessProbe", "readinessProbe", "startupProbe")) {
            assertThat(at(container, probe + ".httpGet.port")).as(probe).isEqualTo("management");
        }
        assertThat(at(container, "livenessProbe.httpGet.path")).isEqualTo("/actuator/health/liveness");
        assertThat(at(container, "readinessProbe.httpGet.path")).isEqualTo("/actuator/health/readiness");
        assertThat(at(container, "startupProbe.httpGet.path")).isEqualTo("/actuator/health/liveness");
    }

    @Test
    void shopperServiceExposesOnlyTheHttpPort() {
        assertThat(list(defaults.get("Service", GATEWAY), "spec.ports")).containsExactly(
                Map.of("name", "http", "port", 80, "targetPort", "http", "protocol", "TCP"));
    }

    @Test
    void ingressPointsOnlyAtTheShopperServiceAndItsHttpPort() {
        Manifests manifests = render("--set", "ingress.enabled=true", "--set-json",
                "queuegate.trustedProxies=[\"10.0.0.0/8\"]", "--set-json",
                "ingress.hosts=[{\"host\":\"shop.example.com\",\"paths\":[{\"path\":\"/\"},{\"path\":\"/actuator\"}]},"
                        + "{\"host\":\"ops.example.com\",\"paths\":[{\"path\":\"/\"}]}]");
        List<Object> backends = list(manifests.get("Ingress", GATEWAY), "spec.rules").stream()
                .flatMap(rule -> list(rule, "http.paths").stream())
                .map(path -> at(path, "backend"))
                .toList();

        assertThat(backends).hasSize(3)
                .allSatisfy(backend -> assertThat(backend).isEqualTo(
                        Map.of("service", Map.of("name", GATEWAY, "port", Map.of("name", "http")))));
    }

    @Test
    void managementServiceIsClusterIpAndExposesOnlyTheManagementPort() {
        Map<String, Object> service = defaults.get("Service", MANAGEMENT);

        assertThat(at(service, "spec.type")).isEqualTo("ClusterIP");
        assertThat(list(service, "spec.ports")).containsExactly(
                Map.of("name", "management", "port", 9090, "targetPort", "management", "protocol", "TCP"));
        assertThat(map(defaults.get("Deployment", GATEWAY), "spec.template.metadata.labels"))
                .containsAllEntriesOf(map(service, "spec.selector"));
    }

    @Test
    void managementServiceStaysClusterIpWhenTheShopperServiceIsALoadBalancer() {
        Manifests manifests = render("--set", "service.type=LoadBalancer");

        assertThat(at(manifests.get("Service", GATEWAY), "spec.type")).isEqualTo("LoadBalancer");
        assertThat(at(manifests.get("Service", MANAGEMENT), "spec.type")).isEqualTo("ClusterIP");
    }

    @Test
    void serviceMonitorSelectsTheManagementServiceAndItsManagementPortNeverTheShopperService() {
        Manifests manifests = render("--set", "metrics.serviceMonitor.enabled=true");
        Map<String, Object> monitor = manifests.get("ServiceMonitor", GATEWAY);
        Map<String, Object> selector = map(monitor, "spec.selector.matchLabels");

        assertThat(map(manifests.get("Service", MANAGEMENT), "metadata.labels")).containsAllEntriesOf(selector);
        assertThat(map(manifests.get("Service", GATEWAY), "metadata.labels").entrySet().containsAll(selector.entrySet()))
                .as("the shopper Service matches the ServiceMonitor's selector %s", selector)
                .isFalse();
        assertThat(list(monitor, "spec.endpoints")).singleElement()
                .satisfies(endpoint -> {
                    assertThat(at(endpoint, "port")).isEqualTo("management");
                    assertThat(at(endpoint, "path")).isEqualTo("/actuator/prometheus");
                });
    }

    @Test
    void applicationConfigKeepsTheActuatorOffTheShopperPort() {
        Map<String, Object> config = defaults.applicationConfig();

        assertThat(at(config, "server.forward-headers-strategy")).isEqualTo("none");
        assertThat(at(config, "server.port")).isEqualTo(8080);
        assertThat(at(config, "management.server.port")).isEqualTo(9090).isNotEqualTo(at(config, "server.port"));
        assertThat(at(config, "management.endpoint.gateway.access")).isEqualTo("read-only");
        // exposure applies to the management port only, because that port is a separate one
        assertThat(at(config, "management.endpoints.web.exposure.include").toString().split(","))
                .containsExactlyInAnyOrder("health", "info", "prometheus", "gateway", "queues");
        assertThat(at(config, "queuegate.operations")).as("the chart never allows operations on the public port").isNull();
        assertThat(containerPort(defaults, "http").get("containerPort")).isEqualTo(at(config, "server.port"));
        assertThat(containerPort(defaults, "management").get("containerPort")).isEqualTo(at(config, "management.server.port"));
    }

    @Test
    void theConsoleIsOffUnlessSwitchedOnAndTheSwitchKeepsTheRestOfTheExposure() {
        assertThat(at(defaults.applicationConfig(), "management.endpoints.web.exposure.include").toString().split(","))
                .doesNotContain("queueconsole");

        Map<String, Object> config = render("--set", "console.enabled=true").applicationConfig();

        assertThat(at(config, "management.endpoints.web.exposure.include").toString().split(","))
                .containsExactlyInAnyOrder("health", "info", "prometheus", "gateway", "queues", "queueconsole");
        assertThat(at(config, "management.server.port")).as("the console only on the management port")
                .isEqualTo(9090).isNotEqualTo(at(config, "server.port"));
    }

    @Test
    void anExposureListInExtraConfigStillWinsOverTheConsoleSwitch() {
        Map<String, Object> config = render("--set", "console.enabled=true",
                "--set", "extraConfig.management.endpoints.web.exposure.include=health,prometheus").applicationConfig();

        assertThat(at(config, "management.endpoints.web.exposure.include")).isEqualTo("health,prometheus");
    }

    @Test
    void renderingFailsWhenTheManagementPortIsTheShopperPort() {
        Helm.Result result = helm.templateResult(withMinimalValues("--set", "containerPorts.management=8080"));

        assertThat(result.exitCode()).as(result.toString()).isNotZero();
        assertThat(result.err()).contains("containerPorts.management must differ from containerPorts.http");
    }

    @Test
    void renderingFailsWhenExtraConfigMovesTheManagementPortOntoTheShopperPort() {
        Helm.Result result = helm.templateResult(withMinimalValues("--set", "extraConfig.management.server.port=8080"));

        assertThat(result.exitCode()).as(result.toString()).isNotZero();
        assertThat(result.err()).contains("extraConfig must not move server.port or management.server.port");
    }

    @Test
    void networkPolicyIsOnByDefaultAndAdmitsOnlyTheMonitoringNamespaceOnTheManagementPort() {
        Map<String, Object> policy = defaults.get("NetworkPolicy", GATEWAY);

        assertThat(map(policy, "spec.podSelector.matchLabels"))
                .isEqualTo(map(defaults.get("Deployment", GATEWAY), "spec.selector.matchLabels"));
        assertThat(list(policy, "spec.policyTypes")).containsExactly("Ingress");
        assertThat(rulesFor(policy, 8080)).singleElement()
                .satisfies(rule -> assertThat(rule).as("shoppers from anywhere").doesNotContainKey("from"));
        assertThat(rulesFor(policy, 9090)).singleElement()
                .satisfies(rule -> assertThat(list(rule, "from")).containsExactly(MONITORING_NAMESPACE));
        assertThat(list(policy, "spec.ingress")).as("no rule opens another port").hasSize(2);
    }

    @Test
    void networkPolicyCanBeTurnedOff() {
        assertThat(render("--set", "networkPolicy.enabled=false").ofKind("NetworkPolicy")).isEmpty();
    }

    @Test
    void changesOnTheManagementPortAreAllowedUnderThePodsAndTheManagementServicesNamesOnly() {
        Map<String, Object> container = defaults.gatewayContainer();
        List<String> env = list(container, "env").stream().map(entry -> (String) at(entry, "name")).toList();

        assertThat(at(defaults.env("POD_NAME").orElseThrow(), "valueFrom.fieldRef.fieldPath")).isEqualTo("metadata.name");
        assertThat(at(defaults.env("POD_IP").orElseThrow(), "valueFrom.fieldRef.fieldPath")).isEqualTo("status.podIP");
        assertThat(env.indexOf("POD_NAME")).as("defined before the variable that expands it")
                .isLessThan(env.indexOf("QUEUEGATE_OPERATIONS_ALLOWEDHOSTS"));
        assertThat(env.indexOf("POD_IP")).isLessThan(env.indexOf("QUEUEGATE_OPERATIONS_ALLOWEDHOSTS"));
        assertThat(allowedHosts(defaults)).containsExactly("$(POD_NAME)", "$(POD_IP)", MANAGEMENT,
                MANAGEMENT + ".shop", MANAGEMENT + ".shop.svc", MANAGEMENT + ".shop.svc.cluster.local");

        Manifests more = render("--set", "clusterDomain=corp.internal",
                "--set", "queuegate.operations.allowedHosts[0]=queuegate-ops.example.com");
        assertThat(allowedHosts(more)).contains(MANAGEMENT + ".shop.svc.corp.internal", "queuegate-ops.example.com")
                .doesNotContain(MANAGEMENT + ".shop.svc.cluster.local");
        assertThat(at(more.applicationConfig(), "queuegate.operations")).as("an environment variable, not the file")
                .isNull();
    }

    private static List<String> allowedHosts(Manifests manifests) {
        String value = (String) at(manifests.env("QUEUEGATE_OPERATIONS_ALLOWEDHOSTS")
                .orElseThrow(() -> new AssertionError("no QUEUEGATE_OPERATIONS_ALLOWEDHOSTS")), "value");
        return List.of(value.split(","));
    }

    @Test
    void withoutAnOperatorPasswordEachPodGeneratesItsOwn() {
        assertThat(defaults.env("SPRING_SECURITY_USER_PASSWORD")).isEmpty();
        assertThat(defaults.env("SPRING_SECURITY_USER_NAME")).isEmpty();
        assertThat(map(defaults.get("Secret", GATEWAY), "data")).doesNotContainKey("operator-password");
    }

    @Test
    void theOperatorLoginComesFromTheChartsSecretAndNeverTheConfigMap() {
        Manifests manifests = render("--set", "operatorLogin.username=ops", "--set", "operatorLogin.password=ci-operator-pw");

        assertThat(at(manifests.env("SPRING_SECURITY_USER_NAME").orElseThrow(), "value")).isEqualTo("ops");
        assertThat(map(manifests.env("SPRING_SECURITY_USER_PASSWORD").orElseThrow(), "valueFrom.secretKeyRef"))
                .isEqualTo(Map.of("name", GATEWAY, "key", "operator-password"));
        assertThat(at(manifests.get("Secret", GATEWAY), "data.operator-password"))
                .isEqualTo(java.util.Base64.getEncoder().encodeToString("ci-operator-pw".getBytes()));
        assertThat((String) at(manifests.get("ConfigMap", GATEWAY), "data.application\\.yaml")).doesNotContain("ci-operator-pw");
    }

    @Test
    void theOperatorLoginComesFromAnExistingSecret() {
        Manifests manifests = render("--set", "operatorLogin.existingSecret=queuegate-operator",
                "--set", "operatorLogin.password=ignored-when-existing");

        assertThat(map(manifests.env("SPRING_SECURITY_USER_PASSWORD").orElseThrow(), "valueFrom.secretKeyRef"))
                .isEqualTo(Map.of("name", "queuegate-operator", "key", "operator-password"));
        assertThat(map(manifests.get("Secret", GATEWAY), "data")).doesNotContainKey("operator-password");
    }

    @Test
    void networkPolicyOpensTheHttpPortAndAdmitsOnlyTheMonitoringNamespaceOnTheManagementPort() {
        Manifests manifests = render("--set", "networkPolicy.enabled=true");
        Map<String, Object> policy = manifests.get("NetworkPolicy", GATEWAY);

        assertThat(map(policy, "spec.podSelector.matchLabels"))
                .isEqualTo(map(manifests.get("Deployment", GATEWAY), "spec.selector.matchLabels"));
        assertThat(list(policy, "spec.policyTypes")).containsExactly("Ingress");
        assertThat(rulesFor(policy, 8080)).singleElement()
                .satisfies(rule -> assertThat(rule).as("no `from` admits every source").doesNotContainKey("from"));
        assertThat(rulesFor(policy, 9090)).singleElement()
                .satisfies(rule -> assertThat(list(rule, "from")).containsExactly(MONITORING_NAMESPACE));
    }

    @Test
    void networkPolicyAddsTheExtraManagementPeersAndTheHttpPeersWhenGiven() {
        Manifests manifests = helm.template("-f", helm.chart("queuegate").resolve("ci/network-policy-values.yaml").toString());
        Map<String, Object> policy = manifests.get("NetworkPolicy", GATEWAY);

        assertThat(rulesFor(policy, 9090)).singleElement()
                .satisfies(rule -> assertThat(list(rule, "from")).containsExactly(MONITORING_NAMESPACE,
                        Map.of("namespaceSelector", Map.of("matchLabels", Map.of("kubernetes.io/metadata.name", "shop-operations")))));
        assertThat(rulesFor(policy, 8080)).singleElement()
                .satisfies(rule -> assertThat(list(rule, "from")).containsExactly(
                        Map.of("namespaceSelector", Map.of("matchLabels", Map.of("kubernetes.io/metadata.name", "ingress-nginx")))));
    }

    @Test
    void networkPolicyClosesTheManagementPortRatherThanOpeningItWhenNoPeerIsLeft() {
        Manifests manifests = render("--set", "networkPolicy.enabled=true",
                "--set-json", "networkPolicy.management.namespaceSelector=null");
        Map<String, Object> policy = manifests.get("NetworkPolicy", GATEWAY);

        assertThat(rulesFor(policy, 9090)).isEmpty();
        assertThat(list(policy, "spec.ingress")).hasSize(1);
    }

    @Test
    void identityIsThePrincipalByDefaultAndNoProxyIsTrusted() {
        Map<String, Object> queuegate = map(defaults.applicationConfig(), "queuegate");

        assertThat(map(queuegate, "identity")).isEqualTo(Map.of("source", "principal", "header", "X-User-Id"));
        assertThat(queuegate).doesNotContainKeys("trusted-proxies", "user-id-header");
    }

    @Test
    void identityHeaderAndTrustedProxiesRenderWhenSet() {
        Manifests manifests = render("--set", "queuegate.identity.source=header",
                "--set", "queuegate.identity.header=X-Customer-Id",
                "--set", "queuegate.trustedProxies[0]=10.0.0.0/8", "--set", "queuegate.trustedProxies[1]=::1/128");
        Map<String, Object> queuegate = map(manifests.applicationConfig(), "queuegate");

        assertThat(map(queuegate, "identity")).isEqualTo(Map.of("source", "header", "header", "X-Customer-Id"));
        assertThat(list(queuegate, "trusted-proxies")).containsExactly("10.0.0.0/8", "::1/128");
    }

    @Test
    void deprecatedUserIdHeaderBecomesTheIdentityHeader() {
        Map<String, Object> queuegate = map(render("--set", "queuegate.userIdHeader=X-Legacy-Id").applicationConfig(), "queuegate");

        assertThat(at(queuegate, "identity.header")).isEqualTo("X-Legacy-Id");
        assertThat(queuegate).doesNotContainKey("user-id-header");
    }

    @Test
    void identityHeaderWinsOverTheDeprecatedUserIdHeader() {
        Manifests manifests = render("--set", "queuegate.userIdHeader=X-Legacy-Id", "--set", "queuegate.identity.header=X-Customer-Id");

        assertThat(at(manifests.applicationConfig(), "queuegate.identity.header")).isEqualTo("X-Customer-Id");
    }
}
