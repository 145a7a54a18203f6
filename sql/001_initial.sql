-- supportcrm v1 data model. Applied by `supportcrm-admin migrate`, recorded in
-- schema_migrations. All times are DATETIME(3) in UTC (every connection sets time_zone +00:00).
-- utf8mb4_bin everywhere: the service compares text exactly; where the contract wants
-- case-insensitive matching (customer email) a normalized key column carries it.

CREATE TABLE brands (
    id          INT UNSIGNED NOT NULL AUTO_INCREMENT,
    name        VARCHAR(255) NOT NULL,
    created_at  DATETIME(3)  NOT NULL,
    PRIMARY KEY (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- A deleted shop is kept (deleted_at set) so that its keys answer 404 "Shop not found"
-- rather than 401, as the contract asks.
CREATE TABLE shops (
    id          INT UNSIGNED NOT NULL AUTO_INCREMENT,
    domain      VARCHAR(255) NOT NULL,
    brand_id    INT UNSIGNED NULL,
    created_at  DATETIME(3)  NOT NULL,
    deleted_at  DATETIME(3)  NULL,
    PRIMARY KEY (id),
    UNIQUE KEY uq_shops_domain (domain),
    KEY ix_shops_brand (brand_id),
    CONSTRAINT fk_shops_brand FOREIGN KEY (brand_id) REFERENCES brands (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- The integration records behind API keys. Only the SHA-256 of a key is stored.
CREATE TABLE api_keys (
    id          INT UNSIGNED NOT NULL AUTO_INCREMENT,
    shop_id     INT UNSIGNED NOT NULL,
    label       VARCHAR(255) NULL,
    key_hash    CHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    created_at  DATETIME(3)  NOT NULL,
    revoked_at  DATETIME(3)  NULL,
    PRIMARY KEY (id),
    UNIQUE KEY uq_api_keys_hash (key_hash),
    KEY ix_api_keys_shop (shop_id),
    CONSTRAINT fk_api_keys_shop FOREIGN KEY (shop_id) REFERENCES shops (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- Agents of a shop (assigned_to of tickets, authors of comments).
CREATE TABLE users (
    id          INT UNSIGNED NOT NULL AUTO_INCREMENT,
    shop_id     INT UNSIGNED NOT NULL,
    email       VARCHAR(255) NOT NULL,
    first_name  VARCHAR(255) NULL,
    last_name   VARCHAR(255) NULL,
    full_name   VARCHAR(511) NULL,
    created_at  DATETIME(3)  NOT NULL,
    PRIMARY KEY (id),
    UNIQUE KEY uq_users_shop_email (shop_id, email),
    CONSTRAINT fk_users_shop FOREIGN KEY (shop_id) REFERENCES shops (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- email_key / phone_key hold the normalized values duplicate detection compares
-- (LOWER(TRIM(email)), TRIM(phone_number)); the unique keys on them make concurrent identical
-- creates resolve to one row. NULL (absent) never collides.
CREATE TABLE customers (
    id                BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
    shop_id           INT UNSIGNED NOT NULL,
    email             VARCHAR(255) NULL,
    email_key         VARCHAR(255) NULL,
    phone_number      VARCHAR(255) NULL,
    phone_key         VARCHAR(255) NULL,
    first_name        VARCHAR(255) NULL,
    last_name         VARCHAR(255) NULL,
    full_name         VARCHAR(511) NULL,
    storefront_id     VARCHAR(255) NULL,
    site_cms_id       VARCHAR(255) NULL,
    storefront_b_id   VARCHAR(255) NULL,
    social_a_user_id  VARCHAR(255) NULL,
    social_b_user_id  VARCHAR(255) NULL,
    messaging_id      VARCHAR(255) NULL,
    helpdesk_a_id     VARCHAR(255) NULL,
    helpdesk_b_id     VARCHAR(255) NULL,
    helpdesk_c_id     VARCHAR(255) NULL,
    helpdesk_d_id     VARCHAR(255) NULL,
    social_b_pseudo   VARCHAR(255) NULL,
    cms               VARCHAR(255) NULL,
    number_of_orders  INT UNSIGNED NOT NULL DEFAULT 0,
    created_at        DATETIME(3)  NOT NULL,
    cms_created_at    DATETIME(3)  NULL,
    PRIMARY KEY (id),
    UNIQUE KEY uq_customers_shop_email (shop_id, email_key),
    UNIQUE KEY uq_customers_shop_phone (shop_id, phone_key),
    CONSTRAINT fk_customers_shop FOREIGN KEY (shop_id) REFERENCES shops (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- Tickets. tags is a JSON array of strings, kept as text.
CREATE TABLE conversations (
    id                 BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
    shop_id            INT UNSIGNED NOT NULL,
    customer_id        BIGINT UNSIGNED NOT NULL,
    channel            VARCHAR(255) NOT NULL,
    name               VARCHAR(255) NULL,
    thread_id          VARCHAR(255) NULL,
    email_used         VARCHAR(255) NULL,
    date               DATETIME(3)  NOT NULL,
    last_message       MEDIUMTEXT   NULL,
    last_message_time  DATETIME(3)  NOT NULL,
    contact_reason     VARCHAR(255) NULL,
    assigned_to        INT UNSIGNED NULL,
    is_opened_ticket   TINYINT(1)   NOT NULL DEFAULT 0,
    unread_chat_count  INT          NOT NULL DEFAULT 0,
    tags               MEDIUMTEXT   NOT NULL,
    language_code      VARCHAR(255) NULL,
    via                VARCHAR(255) NULL,
    created_at         DATETIME(3)  NOT NULL,
    PRIMARY KEY (id),
    KEY ix_conversations_shop (shop_id, id),
    KEY ix_conversations_customer (customer_id),
    KEY ix_conversations_assigned (assigned_to),
    CONSTRAINT fk_conversations_shop FOREIGN KEY (shop_id) REFERENCES shops (id),
    CONSTRAINT fk_conversations_customer FOREIGN KEY (customer_id) REFERENCES customers (id),
    CONSTRAINT fk_conversations_user FOREIGN KEY (assigned_to) REFERENCES users (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE human_tickets (
    id               INT UNSIGNED NOT NULL AUTO_INCREMENT,
    conversation_id  BIGINT UNSIGNED NOT NULL,
    status           VARCHAR(32)  NOT NULL,
    opened_at        DATETIME(3)  NOT NULL,
    closed_at        DATETIME(3)  NULL,
    PRIMARY KEY (id),
    UNIQUE KEY uq_human_tickets_conversation (conversation_id),
    CONSTRAINT fk_human_tickets_conversation FOREIGN KEY (conversation_id)
        REFERENCES conversations (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- Comments. to_emails and tags are JSON arrays of strings, attachments any JSON value, all
-- kept as their JSON text.
CREATE TABLE messages (
    id               BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
    conversation_id  BIGINT UNSIGNED NOT NULL,
    text             MEDIUMTEXT   NOT NULL,
    time             DATETIME(3)  NOT NULL,
    channel          VARCHAR(255) NOT NULL,
    is_from_shop     TINYINT(1)   NOT NULL,
    subject          VARCHAR(1000) NULL,
    from_email       VARCHAR(255) NULL,
    to_emails        MEDIUMTEXT   NOT NULL,
    attachments      MEDIUMTEXT   NULL,
    tags             MEDIUMTEXT   NOT NULL,
    user_id          INT UNSIGNED NULL,
    created_at       DATETIME(3)  NOT NULL,
    PRIMARY KEY (id),
    KEY ix_messages_conversation_time (conversation_id, time, id),
    CONSTRAINT fk_messages_conversation FOREIGN KEY (conversation_id)
        REFERENCES conversations (id),
    CONSTRAINT fk_messages_user FOREIGN KEY (user_id) REFERENCES users (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- CSAT responses. graph_nodes (object) and node_ids (array) are JSON text.
CREATE TABLE surveys (
    id               BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
    shop_id          INT UNSIGNED NOT NULL,
    conversation_id  BIGINT UNSIGNED NOT NULL,
    customer_id      BIGINT UNSIGNED NOT NULL,
    mark             TINYINT UNSIGNED NOT NULL,
    comment          MEDIUMTEXT   NULL,
    message_id       BIGINT       NULL,
    graph_nodes      MEDIUMTEXT   NOT NULL,
    node_ids         MEDIUMTEXT   NOT NULL,
    created_at       DATETIME(3)  NOT NULL,
    PRIMARY KEY (id),
    KEY ix_surveys_shop_created (shop_id, created_at, id),
    KEY ix_surveys_conversation (conversation_id),
    CONSTRAINT fk_surveys_shop FOREIGN KEY (shop_id) REFERENCES shops (id),
    CONSTRAINT fk_surveys_conversation FOREIGN KEY (conversation_id)
        REFERENCES conversations (id),
    CONSTRAINT fk_surveys_customer FOREIGN KEY (customer_id) REFERENCES customers (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- Per shop, per UTC day, per mark counts, maintained in the same transaction as each survey
-- insert, so CSAT statistics never scan the surveys of whole days.
CREATE TABLE survey_daily_counts (
    shop_id  INT UNSIGNED NOT NULL,
    day      DATE NOT NULL,
    mark     TINYINT UNSIGNED NOT NULL,
    count    INT UNSIGNED NOT NULL,
    PRIMARY KEY (shop_id, day, mark),
    CONSTRAINT fk_survey_daily_counts_shop FOREIGN KEY (shop_id) REFERENCES shops (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
