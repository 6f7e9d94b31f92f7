import type { Migration } from './migration'

/**
 * Jobs, agents (the projected delegation tree) and the append-only event log.
 * JSON columns (settings, usage, data) hold compact JSON text written by JSON.stringify.
 */
export const initial: Migration = {
  version: 1,
  name: 'initial',
  up(db) {
    db.exec(`
      CREATE TABLE jobs (
        id            TEXT PRIMARY KEY,
        project       TEXT NOT NULL,
        task          TEXT NOT NULL,
        settings      TEXT NOT NULL,
        status        TEXT NOT NULL,
        created_at    TEXT NOT NULL,
        ended_at      TEXT,
        auto_approve  INTEGER NOT NULL CHECK (auto_approve IN (0, 1)),
        spawn_paused  INTEGER NOT NULL CHECK (spawn_paused IN (0, 1)),
        usage         TEXT NOT NULL,
        cost_usd      REAL
      );
      CREATE INDEX jobs_by_project ON jobs (project, created_at);
      CREATE INDEX jobs_by_status ON jobs (status);

      CREATE TABLE agents (
        id                  TEXT PRIMARY KEY,
        job_id              TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
        parent_id           TEXT,
        depth               INTEGER NOT NULL,
        label               TEXT NOT NULL,
        profile             TEXT NOT NULL,
        model               TEXT,
        task                TEXT NOT NULL,
        status              TEXT NOT NULL,
        terminal_reason     TEXT,
        current_tool        TEXT,
        steps               INTEGER NOT NULL,
        max_steps           INTEGER,
        total_token_budget  INTEGER,
        usage               TEXT NOT NULL,
        cost_usd            REAL,
        created_at          TEXT NOT NULL,
        started_at          TEXT,
        ended_at            TEXT,
        last_event_at       TEXT NOT NULL,
        created_seq         INTEGER NOT NULL
      );
      CREATE INDEX agents_by_job ON agents (job_id, created_seq);

      CREATE TABLE events (
        seq        INTEGER PRIMARY KEY AUTOINCREMENT,
        job_id     TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
        agent_id   TEXT,
        parent_id  TEXT,
        depth      INTEGER,
        type       TEXT NOT NULL,
        ts         TEXT NOT NULL,
        data       TEXT NOT NULL
      );
      CREATE INDEX events_by_job ON events (job_id, seq);
      CREATE INDEX events_by_agent ON events (agent_id, seq);
    `)
  },
}
