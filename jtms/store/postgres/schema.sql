-- The tables, functions and checks of one memory (one PostgreSQL schema).
-- Run with the memory's schema as search_path; the per-table triggers are added by
-- jtms.store.postgres.store (they name each table). Lines "-- section: NAME" mark what
-- `jtms upgrade` runs again on a memory of an older layout (PostgresStore.upgrade_schema).
CREATE TABLE meta (
    key   text PRIMARY KEY,
    value text NOT NULL
);

-- Every write is one event: an import, an addition, an audit or a reinstatement.
CREATE TABLE events (
    id     bigint PRIMARY KEY,
    kind   text NOT NULL CHECK (kind IN ('init', 'import', 'add-evidence', 'add-claim',
                                         'add-justification', 'audit', 'reinstate',
                                         'add-nogood')),
    time   text NOT NULL,
    actor  text,
    reason text,
    roots  text[],
    target bigint,
    source text,
    CHECK ((kind = 'audit') = (roots IS NOT NULL)),
    CHECK ((kind = 'reinstate') = (target IS NOT NULL))
);
CREATE UNIQUE INDEX events_one_reinstatement ON events (target) WHERE kind = 'reinstate';

CREATE TABLE nodes (
    num        integer PRIMARY KEY,
    id         text NOT NULL UNIQUE,
    kind       text NOT NULL CHECK (kind IN ('evidence', 'claim')),
    text       text NOT NULL DEFAULT '',
    author     text,
    expression text,
    value      text,
    event      bigint NOT NULL,
    status     text NOT NULL CHECK (status IN ('active', 'inactive'))
);
CREATE INDEX nodes_by_event ON nodes (event);

CREATE TABLE justifications (
    num         integer PRIMARY KEY,
    claim       integer NOT NULL,
    antecedents integer[] NOT NULL,
    event       bigint NOT NULL
);

-- section: batches
-- Revisions and support pointers are stored one row per batch, not per node: the nodes an
-- event revises to one status (or whose pointers it sets) in one array, in sequence order. An
-- audit writes hundreds of them, and a row per node costs a heap tuple, three index entries
-- and a transition-table row each: most of an audit's time on the server. Node i of a batch
-- (1-based) has sequence number first_seq + i - 1; batches are dense: each starts where the
-- one before ends. The views `revisions` and `supports` below are the per-row tables of the
-- SQLite backend (same columns, same sequence numbers), and what every reader uses.
CREATE TABLE revision_batches (
    first_seq bigint PRIMARY KEY,
    status    text NOT NULL CHECK (status IN ('active', 'inactive')),
    event     bigint NOT NULL,
    nodes     integer[] NOT NULL CHECK (cardinality(nodes) > 0 AND array_ndims(nodes) = 1)
);
CREATE INDEX revision_batches_by_event ON revision_batches (event);
CREATE INDEX revision_batches_by_node ON revision_batches USING gin (nodes);  -- history

CREATE TABLE support_batches (
    first_seq      bigint PRIMARY KEY,
    event          bigint NOT NULL,
    nodes          integer[] NOT NULL,
    justifications integer[] NOT NULL,
    ranks          bigint[] NOT NULL,
    CHECK (cardinality(nodes) > 0 AND array_ndims(nodes) = 1
           AND array_ndims(justifications) = 1 AND array_ndims(ranks) = 1
           AND cardinality(justifications) = cardinality(nodes)
           AND cardinality(ranks) = cardinality(nodes))
);
CREATE INDEX support_batches_by_event ON support_batches (event);

CREATE VIEW revisions AS
SELECT b.first_seq + t.ord - 1 AS seq, t.node, b.status, b.event
  FROM revision_batches b, unnest(b.nodes) WITH ORDINALITY AS t(node, ord);

CREATE VIEW supports AS
SELECT b.first_seq + t.ord - 1 AS seq, t.node, t.justification, t.rank, b.event
  FROM support_batches b,
       unnest(b.nodes, b.justifications, b.ranks) WITH ORDINALITY AS t(node, justification, rank, ord);

-- section: end
-- Nodes that must not all be active together; they change no status by themselves.
CREATE TABLE nogoods (
    id     text PRIMARY KEY,
    nodes  text[] NOT NULL,
    text   text NOT NULL DEFAULT '',
    author text,
    event  bigint NOT NULL,
    status text NOT NULL CHECK (status IN ('active', 'inactive')),
    ord    bigint NOT NULL UNIQUE            -- creation order (SQLite's rowid); not exported
);

CREATE TABLE nogood_revisions (
    seq    bigint PRIMARY KEY,
    nogood text NOT NULL,
    status text NOT NULL CHECK (status IN ('active', 'inactive')),
    event  bigint NOT NULL
);
CREATE INDEX nogood_revisions_by_nogood ON nogood_revisions (nogood, seq);

CREATE TABLE checkpoints (
    event bigint PRIMARY KEY,
    data  bytea NOT NULL
);
-- stored out of line uncompressed: compressing a blob of megabytes (pglz) took longer than
-- anything else an audit that refreshes the checkpoint does
ALTER TABLE checkpoints ALTER COLUMN data SET STORAGE EXTERNAL;

-- The idempotency key of a write (written in the event's transaction): a repeat of the
-- same call with the same key returns the first one's result and writes nothing.
CREATE TABLE idempotency_keys (
    key     text PRIMARY KEY,
    request text NOT NULL,                    -- a digest of the call (tool and arguments)
    event   bigint NOT NULL
);

CREATE FUNCTION refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% are immutable (append-only memory)', TG_TABLE_NAME
        USING ERRCODE = 'insufficient_privilege';
END $$;

-- section: checks (CREATE OR REPLACE on an upgrade)
-- References of inserted rows, checked once per statement (COPY included). Node and
-- justification numbers are dense (0, 1, ...: checked here at every insert), so a reference
-- to one is valid exactly when it lies in [0, max]: one aggregate over the inserted rows and
-- an index lookup, whatever the size of the memory. Nothing referenced can ever be deleted.
CREATE FUNCTION check_references() RETURNS trigger LANGUAGE plpgsql
    SET search_path FROM CURRENT AS $$
DECLARE
    bad text;
    low bigint;
    high bigint;
    rows bigint;
    nodes_max bigint;
    justifications_max bigint;
BEGIN
    IF TG_TABLE_NAME = 'events' THEN
        SELECT 'event ' || r.id || ' undoes a missing audit ' || r.target INTO bad FROM new_rows r
         WHERE r.target IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM events e WHERE e.id = r.target AND e.kind = 'audit')
         LIMIT 1;
    ELSE
        SELECT 'a row refers to a missing event ' || r.event INTO bad
          FROM (SELECT DISTINCT event FROM new_rows) r
         WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.id = r.event) LIMIT 1;
        SELECT max(num) INTO nodes_max FROM nodes;
    END IF;
    IF bad IS NULL AND TG_TABLE_NAME = 'nodes' THEN
        SELECT min(num), max(num), count(*) INTO low, high, rows FROM new_rows;
        IF rows <> high - low + 1 OR (low > 0 AND NOT EXISTS (SELECT 1 FROM nodes WHERE num = low - 1)) THEN
            bad := 'node numbers ' || low || '..' || high || ' are not the next dense numbers';
        END IF;
    ELSIF bad IS NULL AND TG_TABLE_NAME = 'justifications' THEN
        SELECT min(num), max(num), count(*) INTO low, high, rows FROM new_rows;
        IF rows <> high - low + 1
           OR (low > 0 AND NOT EXISTS (SELECT 1 FROM justifications WHERE num = low - 1)) THEN
            bad := 'justification numbers ' || low || '..' || high || ' are not the next dense numbers';
        ELSIF (SELECT max(claim) > nodes_max OR min(claim) < 0 FROM new_rows)
              OR (SELECT max(a) > nodes_max OR min(a) < 0 FROM new_rows, unnest(antecedents) a) THEN
            bad := 'a justification refers to a missing node';
        END IF;
    ELSIF bad IS NULL AND TG_TABLE_NAME = 'revision_batches' THEN
        IF (SELECT max(a) > nodes_max OR min(a) < 0 FROM new_rows, unnest(nodes) a) THEN
            bad := 'a revision refers to a missing node';
        END IF;
    ELSIF bad IS NULL AND TG_TABLE_NAME = 'nogoods' THEN
        SELECT 'nogood ' || r.id || ' names a missing node ' || a.node INTO bad
          FROM new_rows r, unnest(r.nodes) AS a(node)
         WHERE NOT EXISTS (SELECT 1 FROM nodes n WHERE n.id = a.node) LIMIT 1;
    ELSIF bad IS NULL AND TG_TABLE_NAME = 'nogood_revisions' THEN
        SELECT 'a revision of a missing nogood ' || r.nogood INTO bad FROM new_rows r
         WHERE NOT EXISTS (SELECT 1 FROM nogoods g WHERE g.id = r.nogood) LIMIT 1;
    ELSIF bad IS NULL AND TG_TABLE_NAME = 'support_batches' THEN
        SELECT max(num) INTO justifications_max FROM justifications;
        IF (SELECT max(t.node) > nodes_max OR min(t.node) < 0
                   OR max(t.justification) > justifications_max OR min(t.justification) < 0
              FROM new_rows, unnest(nodes, justifications) AS t(node, justification)) THEN
            bad := 'a support refers to a missing node or justification';
        END IF;
    END IF;
    -- batches keep sequence numbers dense and unique: the new ones, in order, start where
    -- the stored batch before them ends (the first at 1); one index lookup
    IF bad IS NULL AND TG_TABLE_NAME IN ('revision_batches', 'support_batches') THEN
        SELECT min(first_seq) INTO low FROM new_rows;
        IF TG_TABLE_NAME = 'revision_batches' THEN
            SELECT coalesce((SELECT first_seq + cardinality(nodes) FROM revision_batches
                              WHERE first_seq < low ORDER BY first_seq DESC LIMIT 1), 1) INTO high;
        ELSE
            SELECT coalesce((SELECT first_seq + cardinality(nodes) FROM support_batches
                              WHERE first_seq < low ORDER BY first_seq DESC LIMIT 1), 1) INTO high;
        END IF;
        IF low <> high THEN
            bad := 'sequence numbers from ' || low || ' do not follow the stored ones (next: ' || high || ')';
        ELSE
            SELECT 'sequence numbers from ' || r.first_seq || ' do not follow the batch before' INTO bad
              FROM (SELECT first_seq, lag(first_seq + cardinality(nodes)) OVER (ORDER BY first_seq) AS prev
                      FROM new_rows) r
             WHERE r.prev <> r.first_seq LIMIT 1;
        END IF;
    END IF;
    IF bad IS NOT NULL THEN
        RAISE EXCEPTION '%: %', TG_TABLE_NAME, bad USING ERRCODE = 'foreign_key_violation';
    END IF;
    RETURN NULL;
END $$;

-- The views revisions and supports take no UPDATE or DELETE (refuse_change, per row), and a
-- row inserted into one becomes a batch of one (so it passes the batches' checks).
CREATE FUNCTION insert_revision_row() RETURNS trigger LANGUAGE plpgsql
    SET search_path FROM CURRENT AS $$
BEGIN
    INSERT INTO revision_batches (first_seq, status, event, nodes)
    VALUES (NEW.seq, NEW.status, NEW.event, ARRAY[NEW.node]);
    RETURN NEW;
END $$;

CREATE FUNCTION insert_support_row() RETURNS trigger LANGUAGE plpgsql
    SET search_path FROM CURRENT AS $$
BEGIN
    INSERT INTO support_batches (first_seq, event, nodes, justifications, ranks)
    VALUES (NEW.seq, NEW.event, ARRAY[NEW.node], ARRAY[NEW.justification], ARRAY[NEW.rank]);
    RETURN NEW;
END $$;

-- section: end
-- Listeners learn of every committed write (payload: the newest event id).
CREATE FUNCTION notify_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify(TG_ARGV[0], (SELECT max(id) FROM new_rows)::text);
    RETURN NULL;
END $$;

-- section: features
-- What later releases added without a new schema version (an older memory gets it when it
-- is first opened: PostgresStore._add_features): the search index and the erasure records.
-- The full-text document of a node: its id (split at _ - . : /) weighted A, its text B.
CREATE OR REPLACE FUNCTION search_document(id text, body text) RETURNS tsvector LANGUAGE sql IMMUTABLE AS $$
    SELECT setweight(to_tsvector('english', translate(id, '_-.:/', '     ')), 'A')
        || setweight(to_tsvector('english', body), 'B')
$$;

-- Derived data (like checkpoints): one document per node, kept in the transaction of every
-- insert (a trigger) and rewritten by a purge.
CREATE TABLE IF NOT EXISTS node_search (
    num      integer PRIMARY KEY,
    document tsvector NOT NULL
);
CREATE INDEX IF NOT EXISTS node_search_documents ON node_search USING gin (document);

CREATE OR REPLACE FUNCTION index_nodes() RETURNS trigger LANGUAGE plpgsql
    SET search_path FROM CURRENT AS $$
BEGIN
    INSERT INTO node_search (num, document) SELECT num, search_document(id, text) FROM new_rows;
    -- the new entries wait in the index's pending list, which every search scans whole
    -- (about 10 ms after an import of 10k nodes): merged into the index now, in bulk
    PERFORM gin_clean_pending_list('node_search_documents'::regclass);
    RETURN NULL;
END $$;

-- Evidence with a valid_until: from that time (ISO 8601 text in UTC) it counts as audited.
CREATE TABLE IF NOT EXISTS expiries (
    node  integer PRIMARY KEY,
    until text NOT NULL,
    event bigint NOT NULL
);

-- The erasure record of each purged node; its purge is an audit event (who, when, why).
CREATE TABLE IF NOT EXISTS erasures (
    node  integer PRIMARY KEY,
    event bigint NOT NULL
);

-- nodes and events take no UPDATE or DELETE, except the one a purge makes: a node's content
-- emptied (and the author its creating event kept), once its erasure record exists.
CREATE OR REPLACE FUNCTION refuse_unless_purge() RETURNS trigger LANGUAGE plpgsql
    SET search_path FROM CURRENT AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND TG_TABLE_NAME = 'nodes' THEN
        IF NEW.num = OLD.num AND NEW.id = OLD.id AND NEW.kind = OLD.kind
           AND NEW.event = OLD.event AND NEW.status = OLD.status AND NEW.text = ''
           AND NEW.author IS NULL AND NEW.expression IS NULL AND NEW.value IS NULL
           AND EXISTS (SELECT 1 FROM erasures WHERE node = OLD.num) THEN
            RETURN NEW;
        END IF;
    ELSIF TG_OP = 'UPDATE' AND TG_TABLE_NAME = 'events' THEN
        IF NEW.id = OLD.id AND NEW.kind = OLD.kind AND NEW.time = OLD.time
           AND NEW.reason IS NOT DISTINCT FROM OLD.reason
           AND NEW.roots IS NOT DISTINCT FROM OLD.roots
           AND NEW.target IS NOT DISTINCT FROM OLD.target
           AND NEW.source IS NOT DISTINCT FROM OLD.source AND NEW.actor IS NULL
           AND OLD.kind IN ('add-evidence', 'add-claim')
           AND EXISTS (SELECT 1 FROM erasures r JOIN nodes n ON n.num = r.node
                        WHERE n.event = OLD.id) THEN
            RETURN NEW;
        END IF;
    END IF;
    RAISE EXCEPTION '% are immutable (append-only memory)', TG_TABLE_NAME
        USING ERRCODE = 'insufficient_privilege';
END $$;
-- section: end
