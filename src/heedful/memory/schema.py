"""The store's schema: an ordered list of migrations, versioned by ``PRAGMA user_version``.

Migration *i* (0-based) moves a database from ``user_version = i`` to ``i + 1``. Never edit a
released migration; append a new one.
"""

from __future__ import annotations

import sqlite3

from heedful.errors import StoreError

_V1 = """
CREATE TABLE sources (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    authority TEXT NOT NULL,            -- JSON {claim_type: authority}
    default_authority REAL NOT NULL,
    trusted INTEGER NOT NULL,
    cost REAL NOT NULL
);
CREATE TABLE claims (
    rid INTEGER PRIMARY KEY,            -- stable integer key: propagation runs on integers
    id TEXT NOT NULL UNIQUE,
    subject TEXT NOT NULL,
    value TEXT NOT NULL,                -- JSON scalar
    domain TEXT,                        -- JSON list or NULL
    claim_type TEXT NOT NULL,
    volatility TEXT NOT NULL,
    origin TEXT NOT NULL,
    source_id TEXT REFERENCES sources(id),
    confidence REAL NOT NULL,
    observed_at REAL NOT NULL,
    dirty INTEGER NOT NULL DEFAULT 0,
    dirty_reason TEXT,
    dirty_cause TEXT
);
CREATE INDEX claims_subject ON claims(subject);
CREATE INDEX claims_dirty ON claims(dirty) WHERE dirty = 1;
CREATE TABLE evidence (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    claim_id TEXT NOT NULL REFERENCES claims(id) ON DELETE CASCADE,
    source_id TEXT NOT NULL REFERENCES sources(id),
    value TEXT NOT NULL,
    observed_at REAL NOT NULL
);
CREATE INDEX evidence_claim ON evidence(claim_id);
-- subject kind object, by claim rid; up/down give the dirty-propagation direction (NULL for
-- contradicts), kept as columns with a covering index so propagation is one recursive query.
CREATE TABLE justifications (
    subject INTEGER NOT NULL REFERENCES claims(rid) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    object INTEGER NOT NULL REFERENCES claims(rid) ON DELETE CASCADE,
    weight REAL NOT NULL,
    up INTEGER,
    down INTEGER,
    PRIMARY KEY (subject, kind, object)
);
CREATE INDEX justifications_up_down ON justifications(up, down);
CREATE INDEX justifications_object ON justifications(object);
-- Revisits of a subject (variable): the change history hazards are learned from.
CREATE TABLE observations (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    subject TEXT NOT NULL,
    value TEXT NOT NULL,
    observed_at REAL NOT NULL
);
CREATE INDEX observations_subject ON observations(subject, observed_at);
CREATE TABLE goals (
    id TEXT PRIMARY KEY,
    status TEXT NOT NULL,
    priority_rank INTEGER NOT NULL,
    due_at REAL,
    created_at REAL NOT NULL,
    body TEXT NOT NULL                  -- the Goal as JSON
);
CREATE INDEX goals_status ON goals(status);
CREATE TABLE trace_events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    event TEXT NOT NULL,
    payload TEXT NOT NULL,              -- JSON object
    candidate_id TEXT,
    ts REAL NOT NULL
);
CREATE INDEX trace_candidate ON trace_events(candidate_id);
"""

_V2 = """
CREATE TABLE nodes (
    rowid INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    node_type TEXT NOT NULL,
    content TEXT NOT NULL,
    confidence REAL NOT NULL,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    metadata TEXT NOT NULL
);
CREATE TABLE edges (
    src TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
    dst TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
    edge_type TEXT NOT NULL,
    weight REAL NOT NULL,
    PRIMARY KEY (src, dst, edge_type)
);
CREATE INDEX edges_dst ON edges(dst);
CREATE TABLE outcomes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    status TEXT NOT NULL,
    confidence REAL NOT NULL,
    goal_id TEXT REFERENCES goals(id) ON DELETE SET NULL,
    at REAL NOT NULL,
    description TEXT NOT NULL
);
CREATE INDEX outcomes_at ON outcomes(at);
CREATE INDEX outcomes_goal ON outcomes(goal_id);
CREATE TABLE outcome_nodes (
    outcome_id INTEGER NOT NULL REFERENCES outcomes(id) ON DELETE CASCADE,
    node_id TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
    PRIMARY KEY (outcome_id, node_id)
);
CREATE INDEX outcome_nodes_node ON outcome_nodes(node_id);
CREATE VIRTUAL TABLE nodes_fts USING fts5(content, content='nodes', content_rowid='rowid');
CREATE TRIGGER nodes_ai AFTER INSERT ON nodes BEGIN
    INSERT INTO nodes_fts(rowid, content) VALUES (new.rowid, new.content);
END;
CREATE TRIGGER nodes_ad AFTER DELETE ON nodes BEGIN
    INSERT INTO nodes_fts(nodes_fts, rowid, content) VALUES ('delete', old.rowid, old.content);
END;
CREATE TRIGGER nodes_au AFTER UPDATE OF content ON nodes BEGIN
    INSERT INTO nodes_fts(nodes_fts, rowid, content) VALUES ('delete', old.rowid, old.content);
    INSERT INTO nodes_fts(rowid, content) VALUES (new.rowid, new.content);
END;
"""

# A source in full: what it reports, its cost split and its data's age (older rows: none known).
_V3 = """
ALTER TABLE sources ADD COLUMN reports TEXT NOT NULL DEFAULT '[]';  -- JSON [claim id]
ALTER TABLE sources ADD COLUMN cost_detail TEXT;    -- JSON {tokens, tool_calls, latency_ms}
ALTER TABLE sources ADD COLUMN age_s REAL NOT NULL DEFAULT 0;
"""

# The engine's goal-less survey reads gap candidates: contradiction edges newest first,
# surprising outcomes newest first and low-confidence nodes lowest first. Without these indexes
# each of those reads scans and sorts its whole table.
_V4 = """
CREATE INDEX edges_type ON edges(edge_type);
CREATE INDEX nodes_confidence ON nodes(confidence, id);
CREATE INDEX outcomes_status ON outcomes(status, at);
"""

# Change counters of the knowledge graph, kept by triggers so that every connection and every
# process sees them: ``text`` moves when a node's text can change full-text results (a node
# inserted, deleted or its content updated: BM25 depends on every document), ``graph`` on any
# change to nodes, edges, outcomes or their node links. A reader caches what it derived from
# the graph (the survey's full-text searches and region reads) under the counter it read first.
# Counters only grow in committed data, so an equal counter means the same data.
_V5 = """
CREATE TABLE graph_versions (
    name TEXT PRIMARY KEY,
    version INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO graph_versions (name, version) VALUES ('text', 0), ('graph', 0);
CREATE TRIGGER nodes_version_ai AFTER INSERT ON nodes BEGIN
    UPDATE graph_versions SET version = version + 1;
END;
CREATE TRIGGER nodes_version_ad AFTER DELETE ON nodes BEGIN
    UPDATE graph_versions SET version = version + 1;
END;
CREATE TRIGGER nodes_version_au AFTER UPDATE ON nodes BEGIN
    UPDATE graph_versions SET version = version + 1
    WHERE name = 'graph' OR old.content IS NOT new.content;
END;
CREATE TRIGGER edges_version_ai AFTER INSERT ON edges BEGIN
    UPDATE graph_versions SET version = version + 1 WHERE name = 'graph';
END;
CREATE TRIGGER edges_version_ad AFTER DELETE ON edges BEGIN
    UPDATE graph_versions SET version = version + 1 WHERE name = 'graph';
END;
CREATE TRIGGER edges_version_au AFTER UPDATE ON edges BEGIN
    UPDATE graph_versions SET version = version + 1 WHERE name = 'graph';
END;
CREATE TRIGGER outcomes_version_ai AFTER INSERT ON outcomes BEGIN
    UPDATE graph_versions SET version = version + 1 WHERE name = 'graph';
END;
CREATE TRIGGER outcomes_version_ad AFTER DELETE ON outcomes BEGIN
    UPDATE graph_versions SET version = version + 1 WHERE name = 'graph';
END;
CREATE TRIGGER outcomes_version_au AFTER UPDATE ON outcomes BEGIN
    UPDATE graph_versions SET version = version + 1 WHERE name = 'graph';
END;
CREATE TRIGGER outcome_nodes_version_ai AFTER INSERT ON outcome_nodes BEGIN
    UPDATE graph_versions SET version = version + 1 WHERE name = 'graph';
END;
CREATE TRIGGER outcome_nodes_version_ad AFTER DELETE ON outcome_nodes BEGIN
    UPDATE graph_versions SET version = version + 1 WHERE name = 'graph';
END;
CREATE TRIGGER outcome_nodes_version_au AFTER UPDATE ON outcome_nodes BEGIN
    UPDATE graph_versions SET version = version + 1 WHERE name = 'graph';
END;
"""

# What a resolve measured reading a source cost (the controller charges an untrusted source that
# instead of its claimed cost, document 000 §24); NULL: nothing measured yet (and older rows).
_V6 = """
ALTER TABLE sources ADD COLUMN measured_cost TEXT;  -- JSON {tokens, tool_calls, latency_ms}
"""

# A server's client sessions (heedful.memory.sessions): the turn and the selections in flight of
# each, so a selection made by one server process is resolved by another (issue 38).
_V7 = """
CREATE TABLE server_sessions (
    session TEXT PRIMARY KEY,
    version INTEGER NOT NULL,           -- grows by one on every write
    body TEXT NOT NULL,                 -- JSON document (heedful.integrations.mcp.resume)
    updated_at REAL NOT NULL
) WITHOUT ROWID;
"""

# The first answer to each keyed write of a client session (heedful.memory.replies): a retried
# write with the same key returns it instead of applying again.
_V8 = """
CREATE TABLE request_replies (
    session TEXT NOT NULL,
    key TEXT NOT NULL,
    tool TEXT NOT NULL,
    digest TEXT NOT NULL,   -- sha256 of the call's canonical arguments
    reply TEXT NOT NULL,    -- JSON, the answer given
    at REAL NOT NULL,
    PRIMARY KEY (session, key)
);
"""

# A source's stated failure rate and its resolved reads (issue 35 item 2): the controller credits
# it with the stated rate moved by what its reads returned, and a reopened controller goes on
# from there.
_V9 = """
ALTER TABLE sources ADD COLUMN failure_rate REAL NOT NULL DEFAULT 0;
ALTER TABLE sources ADD COLUMN reads INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sources ADD COLUMN failed_reads INTEGER NOT NULL DEFAULT 0;
"""

# How many further sources one read of a source names (issue 35 item 3): the controller values a
# read that reveals sources by what the revealed ones may be worth, and a reopened controller
# keeps valuing it so.
_V10 = """
ALTER TABLE sources ADD COLUMN links INTEGER NOT NULL DEFAULT 0;
"""

#: Ordered migrations; ``len(MIGRATIONS)`` is the current schema version.
MIGRATIONS: tuple[str, ...] = (_V1, _V2, _V3, _V4, _V5, _V6, _V7, _V8, _V9, _V10)

SCHEMA_VERSION = len(MIGRATIONS)


def schema_version(conn: sqlite3.Connection) -> int:
    """Return the database's ``user_version``."""
    row = conn.execute("PRAGMA user_version").fetchone()
    return int(row[0])


def migrate(conn: sqlite3.Connection) -> int:
    """Apply every pending migration, each in its own transaction; return the new version.

    Raises:
        StoreError: The file was written by a newer heedful (unknown schema version).
    """
    version = schema_version(conn)
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"store schema version {version} is newer than this heedful supports "
            f"({SCHEMA_VERSION}); upgrade heedful"
        )
    for index in range(version, SCHEMA_VERSION):
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Re-check inside the write lock: another process may have migrated meanwhile.
            if schema_version(conn) != index:
                conn.execute("ROLLBACK")
                continue
            for statement in _statements(MIGRATIONS[index]):
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {index + 1}")
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
    return schema_version(conn)


def _statements(script: str) -> list[str]:
    """Split a migration script into statements (``executescript`` would commit implicitly)."""
    statements: list[str] = []
    buffer = ""
    for line in script.splitlines(keepends=True):
        code = line.split("--", 1)[0] if "--" in line else line
        buffer += code
        if sqlite3.complete_statement(buffer):
            if buffer.strip():
                statements.append(buffer.strip())
            buffer = ""
    if buffer.strip():
        statements.append(buffer.strip())
    return statements
