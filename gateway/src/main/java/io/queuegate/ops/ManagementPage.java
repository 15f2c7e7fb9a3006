package io.queuegate.ops;

/**
 * A page the management port serves (the operator console's), and the Content-Security-Policy it
 * must be served with. The guard sets the policy without knowing the console, which sits beside
 * the operations side rather than inside it.
 */
public interface ManagementPage {

    String contentSecurityPolicy();
}
