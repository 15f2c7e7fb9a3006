package io.queuegate.config;

import java.lang.reflect.Constructor;
import java.lang.reflect.RecordComponent;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link RouteFields} is the one definition of a route field: the settings bind exactly its fields,
 * in its order and types, the policy a route gets when it sets nothing has its defaults, and the
 * policy's checks draw the line exactly at its bounds.
 */
class RouteFieldsTest {

    static List<RouteField<?>> fields() {
        return RouteFields.ALL;
    }

    @Test
    void theSettingsBindExactlyTheFieldsInTheirOrderAndTypes() {
        RecordComponent[] components = QueueSettings.class.getRecordComponents();

        assertThat(Arrays.stream(components).map(component -> kebab(component.getName())))
                .containsExactlyElementsOf(RouteFields.ALL.stream().map(RouteField::name).toList());
        for (int i = 0; i < components.length; i++) {
            assertThat(components[i].getType()).as(RouteFields.ALL.get(i).name()).isEqualTo(RouteFields.ALL.get(i).type());
        }
        assertThat(RouteFields.ALL.stream().map(RouteField::name)).doesNotHaveDuplicates();
    }

    @Test
    void thePolicyOfARouteThatSetsNothingHasEveryDefault() {
        QueuePolicy defaults = QueuePolicy.from(QueueSettings.EMPTY);
        RecordComponent[] components = QueuePolicy.class.getRecordComponents();

        assertThat(components).hasSameSizeAs(RouteFields.ALL);
        for (int i = 0; i < components.length; i++) {
            RouteField<?> field = RouteFields.ALL.get(i);
            assertThat(kebab(components[i].getName())).isEqualTo(field.name());
            assertThat(policyValue(components[i], defaults)).as(field.name()).isEqualTo(field.defaultValue());
        }
    }

    @ParameterizedTest
    @MethodSource("fields")
    void thePolicyRefusesWhatIsBelowTheMinimumAndTakesTheMinimum(RouteField<?> field) {
        if (field.minimum() == null) {
            return;
        }
        assertThatCode(() -> QueuePolicy.from(settingsWith(field, field.minimum()))).as(field.name())
                .doesNotThrowAnyException();
        assertThatThrownBy(() -> QueuePolicy.from(settingsWith(field, field.minimum() - 1))).as(field.name())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(field.name());
    }

    @ParameterizedTest
    @MethodSource("fields")
    void thePolicyRefusesWhatIsAboveTheMaximumAndTakesTheMaximum(RouteField<?> field) {
        if (field.maximum() == null) {
            return;
        }
        assertThatCode(() -> QueuePolicy.from(settingsWith(field, field.maximum()))).as(field.name())
                .doesNotThrowAnyException();
        assertThatThrownBy(() -> QueuePolicy.from(settingsWith(field, field.maximum() + 1))).as(field.name())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(field.name());
    }

    @Test
    void aFieldOfFewValuesSpellsEachAsYamlDoes() {
        assertThat(RouteFields.PROMOTION.choices()).containsExactly("scheduler", "pubsub", "keyspace", "stream");
        assertThat(RouteFields.JOIN_CHALLENGE.choices()).containsExactly("none", "pow", "anonymous");
        assertThat(RouteFields.MAX_ACTIVE.choices()).isEmpty();
        assertThat(RouteFields.SESSION_TTL.description()).endsWith(" Default 10m.");
    }

    /** Settings with only this field set, to a number of its unit (milliseconds for a duration). */
    private static QueueSettings settingsWith(RouteField<?> field, long value) throws ReflectiveOperationException {
        Object[] arguments = new Object[RouteFields.ALL.size()];
        Object typed;
        if (field.type() == Integer.class) {
            typed = (int) value;
        }
        else if (field.type() == Long.class) {
            typed = value;
        }
        else if (field.type() == Duration.class) {
            typed = Duration.ofMillis(value);
        }
        else {
            throw new IllegalArgumentException(field.name() + " has bounds but is not a number or a duration");
        }
        arguments[RouteFields.ALL.indexOf(field)] = typed;
        Constructor<QueueSettings> constructor = QueueSettings.class.getDeclaredConstructor(
                Arrays.stream(QueueSettings.class.getRecordComponents()).map(RecordComponent::getType)
                        .toArray(Class<?>[]::new));
        return constructor.newInstance(arguments);
    }

    /** A policy's value as the field's type holds it: the completion rule and the id pattern as their text. */
    private static Object policyValue(RecordComponent component, QueuePolicy policy) {
        try {
            Object value = component.getAccessor().invoke(policy);
            if (value == CompletionRule.NONE) {
                return null;
            }
            return value instanceof Pattern pattern ? pattern.pattern() : value;
        }
        catch (ReflectiveOperationException ex) {
            throw new IllegalStateException(ex);
        }
    }

    private static String kebab(String camel) {
        return camel.replaceAll("([a-z])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }
}
