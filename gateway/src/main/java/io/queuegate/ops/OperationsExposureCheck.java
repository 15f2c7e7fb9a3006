package io.queuegate.ops;

import java.util.ArrayList;
import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.actuate.autoconfigure.web.server.ManagementPortType;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.EndpointAccessResolver;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.web.WebEndpointsSupplier;
import org.springframework.boot.actuate.endpoint.web.annotation.ControllerEndpointsSupplier;
import org.springframework.boot.actuate.endpoint.web.annotation.ExposableControllerEndpoint;
import org.springframework.core.env.Environment;

/**
 * Refuses (or, in a shop's own gateway, warns about) an operations surface that shoppers can
 * reach: the {@code queues} endpoint (it can pause a sale) or a writable {@code gateway} endpoint
 * (it can add a route without a queue, and everyone walks past the waiting room) served on the
 * shopper port. It reads what Spring Boot resolved (the endpoints actually exposed over HTTP,
 * their access, the management port), not property strings, so {@code include: "*"} and
 * default access count as what they mean. It runs once every bean exists and before the server
 * opens its port.
 */
public class OperationsExposureCheck implements SmartInitializingSingleton {

    /** What happens when the surface is public. */
    public enum Mode {
        /** Stop the start: the runnable gateway, whose configuration is ours. */
        FAIL,
        /** Log a warning: a shop's own gateway may protect the endpoints with Spring Security. */
        WARN
    }

    private static final Log log = LogFactory.getLog(OperationsExposureCheck.class);

    private static final EndpointId GATEWAY = EndpointId.of("gateway");
    private static final EndpointId QUEUES = EndpointId.of("queues");

    private final Mode mode;
    private final boolean allowPublicPort;
    private final Environment environment;
    private final ObjectProvider<WebEndpointsSupplier> webEndpoints;
    private final ObjectProvider<ControllerEndpointsSupplier> controllerEndpoints;
    private final ObjectProvider<EndpointAccessResolver> access;

    public OperationsExposureCheck(Mode mode, boolean allowPublicPort, Environment environment,
            ObjectProvider<WebEndpointsSupplier> webEndpoints,
            ObjectProvider<ControllerEndpointsSupplier> controllerEndpoints, ObjectProvider<EndpointAccessResolver> access) {
        this.mode = mode;
        this.allowPublicPort = allowPublicPort;
        this.environment = environment;
        this.webEndpoints = webEndpoints;
        this.controllerEndpoints = controllerEndpoints;
        this.access = access;
    }

    @Override
    public void afterSingletonsInstantiated() {
        List<String> problems = publicProblems();
        if (problems.isEmpty()) {
            return;
        }
        String message = "The shopper port (server.port) serves " + String.join(" and ", problems)
                + ": anyone who reaches the shop could steer the waiting room. Serve the actuator on its own port "
                + "(management.server.port, e.g. 9090) that only your network reaches, or stop exposing them "
                + "(management.endpoints.web.exposure.include), or set management.endpoint.gateway.access=read-only";
        if (allowPublicPort) {
            log.warn(message + ". Starting anyway: queuegate.operations.allow-public-port=true.");
            return;
        }
        if (mode == Mode.FAIL) {
            throw new IllegalStateException(message
                    + ". (queuegate.operations.allow-public-port=true starts it anyway, if you must.)");
        }
        log.warn(message + ". (Ignore this if Spring Security guards these endpoints on that port.)");
    }

    /** What shoppers could reach on the shopper port; empty when the actuator has a port of its own. */
    List<String> publicProblems() {
        List<String> problems = new ArrayList<>();
        if (ManagementPortType.get(environment) != ManagementPortType.SAME) {
            return problems;
        }
        WebEndpointsSupplier web = webEndpoints.getIfAvailable();
        if (web != null && web.getEndpoints().stream().anyMatch(endpoint -> QUEUES.equals(endpoint.getEndpointId()))) {
            problems.add("the queues endpoint");
        }
        ControllerEndpointsSupplier controllers = controllerEndpoints.getIfAvailable();
        EndpointAccessResolver resolver = access.getIfAvailable();
        if (controllers != null) {
            for (ExposableControllerEndpoint endpoint : controllers.getEndpoints()) {
                if (GATEWAY.equals(endpoint.getEndpointId()) && (resolver == null
                        || resolver.accessFor(GATEWAY, endpoint.getDefaultAccess()) == Access.UNRESTRICTED)) {
                    problems.add("a writable gateway endpoint");
                }
            }
        }
        return problems;
    }
}
