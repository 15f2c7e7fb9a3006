package io.queuegate.store;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;

/**
 * Every Redis key and channel QueueGate uses. The keys of one product share the hash tag
 * {@code {<pid>}}, so each script touches a single Redis Cluster slot; the registry, the due index
 * and the slot-event stream are keys outside any tag, and no product script touches them. The
 * product's names mirror {@code lua/keys.lua}, which makes the same names for the scripts;
 * {@code ScriptContractTest} checks that both agree.
 */
public final class QueueKeys {

    /** The set of product ids that currently have a queue, walked by the scheduler. */
    public static final String PRODUCTS = "qg:products";

    /**
     * The index of products whose promotion may be due: ZSET, score = from when (epoch ms). The
     * safety net promotes only these; like the registry, no multi-key script touches it.
     */
    public static final String DUE = "qg:due";

    /**
     * ZSET of products by their last activity (a new waiter, an admission), score the epoch ms:
     * what operators see first is ranked from it. Trimmed to the most recent
     * {@code ProductRegistry.MAX_ACTIVE_PRODUCTS} and to the last {@code ProductRegistry.ACTIVITY_KEPT}.
     */
    public static final String ACTIVITY = "qg:activity";

    /** How many buckets a line's users are spread over (line.lua's {@code BUCKETS}). */
    public static final int BUCKETS = 65_536;

    private static final ThreadLocal<MessageDigest> SHA_1 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-1");
        }
        catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException("every Java runtime has SHA-1", ex);
        }
    });

    /** The channel pattern on which freed places are announced ({@code promotion: pubsub}). */
    public static final String SLOT_AVAILABLE_PATTERN = "qg:slot-available:*";

    private static final String SLOT_AVAILABLE_PREFIX = "qg:slot-available:";

    /** Redis's expiry events of every database ({@code promotion: keyspace} listens here). */
    public static final String EXPIRED_EVENTS_PATTERN = "__keyevent@*__:expired";

    /**
     * The stream of slot-free events ({@code promotion: stream}). One stream for all products,
     * so one consumer group serves them all; it is a single key, so it is cluster-safe.
     */
    public static final String SLOT_EVENTS = "qg:slot-events";

    private static final String SLOT_INFIX = "}:slot:";

    /** Admissions are announced here (space-separated user ids), one channel per product. */
    public static final String ADMITTED_PATTERN = "qg:admitted:*";

    private static final String ADMITTED_PREFIX = "qg:admitted:";

    /** Completions and leaves are announced here, one channel per product, for the active caches. */
    public static final String RELEASED_PATTERN = "qg:released:*";

    private static final String RELEASED_PREFIX = "qg:released:";

    /** Places made in a product's invited line are announced here (how many), one channel per product. */
    public static final String INVITED_JOINED_PATTERN = "qg:invited:*";

    private static final String INVITED_JOINED_PREFIX = "qg:invited:";

    private final String productId;
    private final String prefix;

    private QueueKeys(String productId) {
        this.productId = productId;
        this.prefix = "qg:{" + productId + "}:";
    }

    /** The keys of one product; {@code productId} must already be validated. */
    public static QueueKeys of(String productId) {
        return new QueueKeys(productId);
    }

    /** The product id of a released channel, or {@code null} for another channel. */
    public static String productOfReleasedChannel(String channel) {
        return channel.startsWith(RELEASED_PREFIX) ? channel.substring(RELEASED_PREFIX.length()) : null;
    }

    /** The product id of an admitted channel, or {@code null} for another channel. */
    public static String productOfAdmittedChannel(String channel) {
        return channel.startsWith(ADMITTED_PREFIX) ? channel.substring(ADMITTED_PREFIX.length()) : null;
    }

    /** The product id of an invited-joined channel, or {@code null} for another channel. */
    public static String productOfInvitedJoinedChannel(String channel) {
        return channel.startsWith(INVITED_JOINED_PREFIX) ? channel.substring(INVITED_JOINED_PREFIX.length()) : null;
    }

    /** The product id announced on a slot-available channel, or {@code null} for another channel. */
    public static String productOfChannel(String channel) {
        return channel.startsWith(SLOT_AVAILABLE_PREFIX) ? channel.substring(SLOT_AVAILABLE_PREFIX.length()) : null;
    }

    /**
     * The product and user of a slot key {@code qg:{<pid>}:slot:<uid>}, or {@code null} for any
     * other key (expiry events arrive for every key of the database).
     */
    public static String[] productAndUserOfSlot(String key) {
        if (!key.startsWith("qg:{")) {
            return null;
        }
        int infix = key.indexOf(SLOT_INFIX);
        if (infix < 0) {
            return null;
        }
        String productId = key.substring(4, infix);
        String userId = key.substring(infix + SLOT_INFIX.length());
        return productId.isEmpty() || userId.isEmpty() ? null : new String[] { productId, userId };
    }

    public String productId() {
        return productId;
    }

    /** ZSET of admitted users, scored by session expiry (epoch ms). */
    public String active() {
        return prefix + "active";
    }

    /**
     * The last ticket handed out: tickets number the line in arrival order, even for joins within
     * the same millisecond. The line itself lives in keys the scripts derive from the product's
     * prefix ({@code line.lua}): pages of tickets, buckets of users, the places given up.
     */
    public String sequence() {
        return prefix + "seq";
    }

    /** HASH of the product's rules as the last join saw them, the operator's levers and the head of the line. */
    public String settings() {
        return prefix + "settings";
    }

    /** ZSET of places given up ahead of the head of the line (a leave), scored by position; named in line.lua. */
    public String left() {
        return prefix + "left";
    }

    /** ZSET of admitted users who have not arrived yet, scored by their arrival deadline; named in fill.lua. */
    public String arriving() {
        return prefix + "arriving";
    }

    /**
     * ZSET of places reclaimed after a loss that the line could not hold where they were, served
     * before the line, scored by position; named in keys.lua.
     */
    public String returning() {
        return prefix + "returning";
    }

    /** HASH of user id to the time before which no token brings a session of theirs back (after a loss). */
    public String honoured() {
        return prefix + "honoured";
    }

    /**
     * ZSET of the user ids whose place or session ended, scored by when (epoch ms), kept while a
     * token signed before the end lives; every instance learns it at startup and after a loss.
     */
    public String ended() {
        return prefix + "ended";
    }

    /** BITMAP of the tickets whose places were reclaimed after a loss, each once. */
    public String reclaimed() {
        return prefix + "reclaimed";
    }

    /** String with the session's TTL, one per admitted user of a keyspace product. */
    public String slot(String userId) {
        return prefix + "slot:" + userId;
    }

    /** String with the session's remaining TTL: a request completing the session holds it (join.lua). */
    public String completing(String userId) {
        return prefix + "completing:" + userId;
    }

    /**
     * String expiring with the invitation (a minute after its {@code exp}): how many places the
     * invitation with this {@code jti} has made for the product (join.lua).
     */
    public String invite(String invitationId) {
        return prefix + "invite:" + invitationId;
    }

    /**
     * String that expires with a proof-of-work challenge: the join that used its solution took
     * it (join.lua), so the solution buys no second join on any instance.
     */
    public String challenge(String mark) {
        return prefix + "pow:" + mark;
    }

    /** HASH ticket -> user id for the tickets {@code n*128} to {@code n*128+127} (line.lua). */
    public String page(long n) {
        return prefix + "line:" + n;
    }

    /** HASH user id -> ticket, one of the line's buckets (line.lua). */
    public String bucket(int b) {
        return prefix + "tickets:" + b;
    }

    /**
     * The user's bucket, as line.lua's {@code bucket_of} hashes it: the first 32 bits of the SHA-1
     * of the id's UTF-8 bytes, modulo {@link #BUCKETS}. The gateway works it out for join.lua,
     * where the hash cost Redis more than any command a join makes; the other scripts hash in Redis
     * and must find the same bucket ({@code BucketOfTest} runs both on the same ids).
     */
    public static int bucketOf(String userId) {
        byte[] digest = SHA_1.get().digest(userId.getBytes(StandardCharsets.UTF_8));
        // The first 32 bits modulo 2^16 are the digest's third and fourth bytes.
        return ((digest[2] & 0xff) << 8 | (digest[3] & 0xff)) % BUCKETS;
    }

    /** BITMAP of the tickets whose holders were seen in span {@code n} of {@code span} ms (line.lua). */
    public String seen(long span, long n) {
        return prefix + "seen:" + span + ":" + n;
    }

    /** Freed places are announced here ({@code promotion: pubsub}). */
    public String slotAvailableChannel() {
        return SLOT_AVAILABLE_PREFIX + productId;
    }

    /** Admissions are announced here (space-separated user ids). */
    public String admittedChannel() {
        return ADMITTED_PREFIX + productId;
    }

    /** Completions and leaves are announced here (a user id, {@code *} for everyone). */
    public String releasedChannel() {
        return RELEASED_PREFIX + productId;
    }

    /** Places made in the invited line ({@code invites: priority}) are announced here: how many, per join call. */
    public String invitedJoinedChannel() {
        return INVITED_JOINED_PREFIX + productId;
    }

    /** The invited line's ticket counter ({@code invites: priority}); its other keys share the prefix (line.lua). */
    public String invitedSequence() {
        return prefix + "invited:seq";
    }

    /** ZSET of places given up ahead of the invited line's head. */
    public String invitedLeft() {
        return prefix + "invited:left";
    }

    /** BITMAP of the invited line's tickets whose places were reclaimed after a loss. */
    public String invitedReclaimed() {
        return prefix + "invited:reclaimed";
    }

    /**
     * The keys every product script is given: the settings first (Lettuce routes a script by its
     * first key; every other key of the product is in the same slot).
     */
    public List<String> forScripts() {
        return List.of(settings(), active(), sequence());
    }
}
