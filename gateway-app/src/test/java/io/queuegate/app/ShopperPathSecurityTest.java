package io.queuegate.app;

import java.util.Set;

import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.autoconfigure.web.server.ManagementPortType;

import static org.assertj.core.api.Assertions.assertThat;

/** When a shopper's request may skip Spring Security: only when nothing on the shopper port needs it. */
class ShopperPathSecurityTest {

    private static final Set<String> OWN = ShopperPathSecurity.OWN_CHAINS;

    @Test
    void theGatewaysOwnChainsWithoutAJwtNeedNothingOfShoppers() {
        assertThat(ShopperPathSecurity.shoppersSkip(OWN, false, ManagementPortType.DIFFERENT)).isTrue();
        assertThat(ShopperPathSecurity.shoppersSkip(OWN, false, ManagementPortType.DISABLED)).isTrue();
    }

    @Test
    void aJwtToValidateKeepsSpringSecurityOnEveryRequest() {
        assertThat(ShopperPathSecurity.shoppersSkip(OWN, true, ManagementPortType.DIFFERENT)).isFalse();
    }

    @Test
    void aChainTheShopAddsKeepsSpringSecurityOnEveryRequest() {
        assertThat(ShopperPathSecurity.shoppersSkip(Set.of("queuegateSecurity", "queuegateManagementSecurity",
                "shopAdminPages"), false, ManagementPortType.DIFFERENT)).isFalse();
    }

    @Test
    void anActuatorOnTheShopperPortKeepsSpringSecurityOnEveryRequest() {
        assertThat(ShopperPathSecurity.shoppersSkip(OWN, false, ManagementPortType.SAME)).isFalse();
    }
}
