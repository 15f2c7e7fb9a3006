package io.queuegate.chart;

import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * Values that must stop {@code helm template} (and so {@code helm install}) with a message that
 * names the problem, before anything reaches a cluster. Schema violations are named as the embedded
 * Helm (v3.17) names them, by the dotted path of the value.
 */
class ChartRejectsBadValuesTest {

    private static final String SECRET = "queuegate.token.secret=ci-only-token-secret-not-for-production-0123456789";
    private static final String HOST = "redis.host=redis";

    private static Helm helm;

    @BeforeAll
    static void findHelm() {
        helm = Helm.find();
    }

    static Stream<Arguments> badValues() {
        return Stream.of(
                arguments("an autoscaler without maxReplicas",
                        List.of("--set", SECRET, "--set", HOST, "--set", "autoscaling.hpa.enabled=true"),
                        "autoscaling.hpa.maxReplicas is required when autoscaling.hpa.enabled=true"),
                arguments("an autoscaler whose ceiling is below its floor",
                        List.of("--set", SECRET, "--set", HOST, "--set", "autoscaling.hpa.enabled=true",
                                "--set", "autoscaling.hpa.minReplicas=4", "--set", "autoscaling.hpa.maxReplicas=2"),
                        "must not be below autoscaling.hpa.minReplicas"),
                arguments("a replica count in words",
                        List.of("--set", SECRET, "--set", HOST, "--set", "replicaCount=three"),
                        "replicaCount:"),
                arguments("an unknown Redis mode",
                        List.of("--set", SECRET, "--set", HOST, "--set", "redis.mode=foo"),
                        "redis.mode:"),
                arguments("no token secret and no existing Secret",
                        List.of("--set", HOST),
                        "queuegate.token.secret:"),
                arguments("a token secret shorter than HS256 needs",
                        List.of("--set", "queuegate.token.secret=too-short", "--set", HOST),
                        "queuegate.token.secret:"),
                arguments("a previous token secret shorter than HS256 needs",
                        List.of("--set", SECRET, "--set", HOST, "--set", "queuegate.token.previousSecrets[0]=short"),
                        "queuegate.token.previousSecrets.0:"),
                arguments("standalone Redis without a host",
                        List.of("--set", SECRET),
                        "redis.host is required in redis.mode=standalone"),
                arguments("Sentinel without nodes",
                        List.of("--set", SECRET, "--set", "redis.mode=sentinel"),
                        "redis.sentinel.nodes:"),
                arguments("Cluster without nodes",
                        List.of("--set", SECRET, "--set", "redis.mode=cluster"),
                        "redis.cluster.nodes:"),
                arguments("a Cluster node without a port",
                        List.of("--set", SECRET, "--set", "redis.mode=cluster", "--set", "redis.cluster.nodes[0]=redis"),
                        "redis.cluster.nodes.0:"),
                arguments("the dev Redis in Sentinel mode",
                        List.of("--set", SECRET, "--set", "devRedis.enabled=true", "--set", "redis.mode=sentinel",
                                "--set", "redis.sentinel.nodes[0]=s:26379"),
                        "devRedis.enabled=true is a single standalone Redis"),
                arguments("a route queue admitting nobody",
                        List.of("--set", SECRET, "--set", HOST, "--set-json",
                                "routes=[{\"id\":\"r\",\"uri\":\"http://shop\",\"metadata\":{\"queue\":{\"max-active\":0}}}]"),
                        "routes.0.metadata.queue.max-active:"),
                arguments("a route queue with an unknown promotion",
                        List.of("--set", SECRET, "--set", HOST, "--set-json",
                                "routes=[{\"id\":\"r\",\"uri\":\"http://shop\",\"metadata\":{\"queue\":{\"promotion\":\"carrier-pigeon\"}}}]"),
                        "routes.0.metadata.queue.promotion:"),
                arguments("a complete-on rule without a method",
                        List.of("--set", SECRET, "--set", HOST, "--set-json",
                                "routes=[{\"id\":\"r\",\"uri\":\"http://shop\",\"metadata\":{\"queue\":{\"complete-on\":\"/orders\"}}}]"),
                        "routes.0.metadata.queue.complete-on:"),
                arguments("a misspelt product override field",
                        List.of("--set", SECRET, "--set", HOST, "--set-json", "products={\"42\":{\"maxActive\":2}}"),
                        "products.42:"),
                arguments("a misspelt route queue field",
                        List.of("--set", SECRET, "--set", HOST, "--set-json", route("{\"max-actve\":10}")),
                        "routes.0.metadata.queue: Additional property max-actve is not allowed"),
                arguments("a misspelt product override field in kebab case",
                        List.of("--set", SECRET, "--set", HOST, "--set-json", "products={\"42\":{\"max-actve\":2}}"),
                        "products.42: Additional property max-actve is not allowed"),
                arguments("a product override with an unknown promotion",
                        List.of("--set", SECRET, "--set", HOST, "--set-json",
                                "products={\"42\":{\"promotion\":\"carrier-pigeon\"}}"),
                        "products.42.promotion:"),
                arguments("an unknown on-redis-failure",
                        List.of("--set", SECRET, "--set", HOST, "--set-json", route("{\"on-redis-failure\":\"retry\"}")),
                        "routes.0.metadata.queue.on-redis-failure:"),
                arguments("invites on (an unquoted YAML on reads as true)",
                        List.of("--set", SECRET, "--set", HOST, "--set-json", route("{\"invites\":true}")),
                        "routes.0.metadata.queue.invites:"),
                arguments("an unknown join challenge",
                        List.of("--set", SECRET, "--set", HOST, "--set-json", route("{\"join-challenge\":\"captcha\"}")),
                        "routes.0.metadata.queue.join-challenge:"),
                arguments("an unknown token binding",
                        List.of("--set", SECRET, "--set", HOST, "--set-json", route("{\"bind-token\":\"device\"}")),
                        "routes.0.metadata.queue.bind-token:"),
                arguments("a proof of work of no hash",
                        List.of("--set", SECRET, "--set", HOST, "--set-json", route("{\"pow-difficulty\":0}")),
                        "routes.0.metadata.queue.pow-difficulty:"),
                arguments("a proof of work too hard for a phone",
                        List.of("--set", SECRET, "--set", HOST, "--set-json", "products={\"42\":{\"pow-difficulty\":50000001}}"),
                        "products.42.pow-difficulty:"),
                arguments("a negative admission rate",
                        List.of("--set", SECRET, "--set", HOST, "--set-json", route("{\"max-admit-per-minute\":-1}")),
                        "routes.0.metadata.queue.max-admit-per-minute:"),
                arguments("a session time in words",
                        List.of("--set", SECRET, "--set", HOST, "--set-json", route("{\"session-ttl\":\"ten minutes\"}")),
                        "routes.0.metadata.queue.session-ttl:"),
                arguments("a compound duration Spring does not parse",
                        List.of("--set", SECRET, "--set", HOST, "--set-json", route("{\"session-ttl\":\"1h30m\"}")),
                        "routes.0.metadata.queue.session-ttl:"),
                arguments("a session shorter than a second, in milliseconds",
                        List.of("--set", SECRET, "--set", HOST, "--set-json", route("{\"session-ttl\":500}")),
                        "routes.0.metadata.queue.session-ttl:"),
                arguments("a negative abandon-after",
                        List.of("--set", SECRET, "--set", HOST, "--set-json", "products={\"42\":{\"abandon-after\":\"-5s\"}}"),
                        "products.42.abandon-after:"),
                arguments("an opening time that is neither text nor a number",
                        List.of("--set", SECRET, "--set", HOST, "--set-json", route("{\"opens-at\":true}")),
                        "routes.0.metadata.queue.opens-at:"),
                arguments("a display name with a line break",
                        List.of("--set", SECRET, "--set", HOST, "--set-json",
                                "products={\"42\":{\"display-name\":\"Limited\\nsneakers\"}}"),
                        "products.42.display-name:"),
                arguments("a blank display name",
                        List.of("--set", SECRET, "--set", HOST, "--set-json", route("{\"display-name\":\"  \"}")),
                        "routes.0.metadata.queue.display-name:"),
                arguments("a display name of 81 characters",
                        List.of("--set", SECRET, "--set", HOST, "--set-json",
                                route("{\"display-name\":\"" + "x".repeat(81) + "\"}")),
                        "routes.0.metadata.queue.display-name:"),
                arguments("a display name in a language that is no language tag",
                        List.of("--set", SECRET, "--set", HOST, "--set-json",
                                route("{\"display-names\":{\"korean!\":\"한정판\"}}")),
                        "routes.0.metadata.queue.display-names:"),
                arguments("a blank display name in a language",
                        List.of("--set", SECRET, "--set", HOST, "--set-json",
                                "products={\"42\":{\"display-names\":{\"ko\":\" \"}}}"),
                        "products.42.display-names.ko:"),
                arguments("a product id the gateway would refuse",
                        List.of("--set", SECRET, "--set", HOST, "--set-json", "products={\"a b\":{\"max-active\":2}}"),
                        "products: Property name of \"a b\" does not match"),
                arguments("an identity source the gateway does not know",
                        List.of("--set", SECRET, "--set", HOST, "--set", "queuegate.identity.source=cookie"),
                        "queuegate.identity.source:"),
                arguments("a trusted proxy that is not a string",
                        List.of("--set", SECRET, "--set", HOST, "--set-json", "queuegate.trustedProxies=[10]"),
                        "queuegate.trustedProxies.0:"),
                arguments("an operator user name with a colon, which HTTP Basic would split",
                        List.of("--set", SECRET, "--set", HOST, "--set", "operatorLogin.username=ops:admin"),
                        "operatorLogin.username:"),
                arguments("an allowed host with a comma, which would split it in two",
                        List.of("--set", SECRET, "--set", HOST, "--set-json",
                                "queuegate.operations.allowedHosts=[\"a.example,b.example\"]"),
                        "queuegate.operations.allowedHosts.0:"),
                arguments("an identity header with a space",
                        List.of("--set", SECRET, "--set", HOST, "--set", "queuegate.identity.header=X User"),
                        "queuegate.identity.header:"),
                arguments("a management port out of range",
                        List.of("--set", SECRET, "--set", HOST, "--set", "containerPorts.management=70000"),
                        "containerPorts.management:"),
                arguments("the shoppers' port moved through extraConfig",
                        List.of("--set", SECRET, "--set", HOST, "--set", "extraConfig.server.port=9090"),
                        "extraConfig must not move server.port or management.server.port"),
                arguments("an Ingress with no trusted proxies (every shopper would be the ingress controller)",
                        List.of("--set", SECRET, "--set", HOST, "--set", "ingress.enabled=true"),
                        "ingress.enabled=true needs queuegate.trustedProxies"),
                arguments("an Ingress with no trusted proxies, the opt-out set to false",
                        List.of("--set", SECRET, "--set", HOST, "--set", "ingress.enabled=true",
                                "--set", "ingress.allowWithoutTrustedProxies=false"),
                        "or set ingress.allowWithoutTrustedProxies=true"),
                arguments("both PDB bounds",
                        List.of("--set", SECRET, "--set", HOST, "--set", "pdb.minAvailable=1", "--set", "pdb.maxUnavailable=1"),
                        "set only one of pdb.minAvailable and pdb.maxUnavailable"),
                arguments("an alert window that is no Prometheus duration",
                        List.of("--set", SECRET, "--set", HOST, "--set", "alerts.enabled=true",
                                "--set", "alerts.stalledLine.window=ten minutes"),
                        "alerts.stalledLine.window:"),
                arguments("an alert threshold that would not be a number in PromQL",
                        List.of("--set", SECRET, "--set", HOST, "--set", "alerts.enabled=true",
                                "--set", "alerts.decisionLatency.thresholdSeconds=1s"),
                        "alerts.decisionLatency.thresholdSeconds:"),
                arguments("a misspelt alert",
                        List.of("--set", SECRET, "--set", HOST, "--set", "alerts.stalledline.enabled=false"),
                        "alerts:"),
                arguments("a dashboard label value Kubernetes would refuse",
                        List.of("--set", SECRET, "--set", HOST, "--set", "dashboards.enabled=true",
                                "--set", "dashboards.labelValue=not a label"),
                        "dashboards.labelValue:"),
                arguments("every alert off while the rule is on",
                        List.of("--set", SECRET, "--set", HOST, "--set", "alerts.enabled=true",
                                "--set", "alerts.redisFailures.enabled=false", "--set", "alerts.failOpenPasses.enabled=false",
                                "--set", "alerts.stalledLine.enabled=false", "--set", "alerts.decisionLatency.enabled=false"),
                        "every alert under alerts.* is turned off"));
    }

    /** {@code routes} holding one route with this queue block, for {@code --set-json}. */
    private static String route(String queue) {
        return "routes=[{\"id\":\"r\",\"uri\":\"http://shop\",\"metadata\":{\"queue\":" + queue + "}}]";
    }

    @Test
    void aBareInstallNamesBothWaysToGiveTheTokenSecret() {
        // helm install queuegate helm/queuegate, nothing else: the first thing a newcomer types
        Helm.Result result = helm.templateResult();

        assertThat(result.exitCode()).as(result.toString()).isNotZero();
        assertThat(result.err()).as("the message of a bare install")
                .contains("queuegate.token.secret").contains("queuegate.token.existingSecret");
    }

    @Test
    void anEmptyTokenSecretWithRedisGivenNamesBothWaysToGiveIt() {
        Helm.Result result = helm.templateResult("--set", HOST, "--set", "queuegate.token.secret=");

        assertThat(result.exitCode()).as(result.toString()).isNotZero();
        assertThat(result.err()).contains("queuegate.token.secret").contains("queuegate.token.existingSecret");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badValues")
    void templateFailsNamingTheProblem(String what, List<String> args, String message) {
        Helm.Result result = helm.templateResult(args.toArray(String[]::new));

        assertThat(result.exitCode()).as("expected a failure for %s: %s", what, result).isNotZero();
        assertThat(result.err()).contains(message);
    }
}
