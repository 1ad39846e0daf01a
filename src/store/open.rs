//! Opening the store without trusting it: the data directory is checked, the schema version is
//! read before anything else (a newer store is refused, an older one is backed up and migrated
//! in one transaction), and the tables are compared with what this build writes, so a damaged
//! or hand-edited store is reported at open, never after the user has answered a question.
//! Read-only commands open the file read-only and work on a read-only folder.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, ErrorCode, OpenFlags, TransactionBehavior};

use super::DB_FILE;

/// The layout version written to SQLite's `user_version`. Version 0 is a store made before
/// versioning, with the same tables as version 1.
pub const SCHEMA_VERSION: i64 = 2;

/// How long a writer waits for another process's lock before reporting it.
pub const LOCK_WAIT: Duration = Duration::from_secs(10);

pub(super) const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS reviews (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    card          TEXT    NOT NULL,
    at_ms         INTEGER NOT NULL,
    rating        TEXT    NOT NULL,
    suggested     TEXT,
    verdict       TEXT,
    score         REAL,
    points_hit    TEXT    NOT NULL DEFAULT '[]',
    points_missed TEXT    NOT NULL DEFAULT '[]',
    red_flags     TEXT    NOT NULL DEFAULT '[]',
    answer_ms     INTEGER,
    basics_s      INTEGER,
    solid_s       INTEGER,
    hints         INTEGER NOT NULL DEFAULT 0,
    deeper        INTEGER NOT NULL DEFAULT 0,
    mode          TEXT    NOT NULL,
    scheduled     INTEGER NOT NULL,
    card_hash     TEXT,
    session       TEXT,
    source        TEXT
);
CREATE INDEX IF NOT EXISTS reviews_by_card ON reviews(card, at_ms, id);
CREATE TABLE IF NOT EXISTS undone (
    review_id INTEGER PRIMARY KEY,
    at_ms     INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS card_state (
    card       TEXT PRIMARY KEY,
    phase      TEXT    NOT NULL,
    step       INTEGER NOT NULL,
    stability  REAL    NOT NULL,
    difficulty REAL    NOT NULL,
    due_ms     INTEGER NOT NULL,
    last_ms    INTEGER NOT NULL,
    first_ms   INTEGER NOT NULL,
    reps       INTEGER NOT NULL,
    lapses     INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
";

/// Migration `i` takes a store from version `i` to `i + 1`, inside one transaction.
const MIGRATIONS: [&str; SCHEMA_VERSION as usize] = [
    // 0 → 1: versioning begins; the tables are those of the unversioned store.
    SCHEMA,
    // 1 → 2: the model judge's cached judgements and the learner's disputed verdicts.
    super::judge::TABLES,
];

/// What went wrong with the store, so callers can react (the quiz waits on `Locked`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Problem {
    Locked,
    ReadOnly,
    Damaged,
    Newer,
    Layout,
    Folder,
    Other,
}

/// A store error that names the file and says what to do.
#[derive(Debug)]
pub struct StoreError {
    pub problem: Problem,
    message: String,
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for StoreError {}

fn fail(problem: Problem, message: String) -> anyhow::Error {
    anyhow::Error::new(StoreError { problem, message })
}

/// Whether `e` is the store being held by another process past [`LOCK_WAIT`].
pub fn is_locked(e: &anyhow::Error) -> bool {
    e.downcast_ref::<StoreError>()
        .is_some_and(|s| s.problem == Problem::Locked)
}

/// A SQLite error while `doing` something with the store at `path`, said for a person.
pub(super) fn explain(e: rusqlite::Error, path: &Path, doing: &str) -> anyhow::Error {
    let p = path.display();
    let code = e.sqlite_error_code();
    // SQL text is never shown: only SQLite's own message.
    let detail = match &e {
        rusqlite::Error::SqlInputError { msg, .. } => msg.clone(),
        rusqlite::Error::SqliteFailure(f, Some(m)) => format!("{m} ({f})"),
        other => other.to_string(),
    };
    match code {
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => fail(
            Problem::Locked,
            format!(
                "the progress store {p} is locked by another process (another mcp-tutor session?) and stayed locked for {} s while {doing}; finish the other session and try again",
                LOCK_WAIT.as_secs()
            ),
        ),
        Some(ErrorCode::ReadOnly) => fail(
            Problem::ReadOnly,
            format!(
                "the progress store {p} is read-only, and {doing} writes to it: make the file and its folder writable, or pass --data-dir DIR (or set MCP_TUTOR_HOME) to a writable folder; `stats` and `progress export` work on a read-only store"
            ),
        ),
        Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt) => fail(
            Problem::Damaged,
            format!(
                "the progress store {p} is damaged or is not an mcp-tutor store ({detail}): restore a backup, or move the file aside to start an empty store"
            ),
        ),
        Some(ErrorCode::CannotOpen | ErrorCode::PermissionDenied) => fail(
            Problem::Folder,
            format!(
                "cannot open the progress store {p} ({detail}): check that its folder exists and that you may read and write it, or pass --data-dir DIR"
            ),
        ),
        Some(ErrorCode::DiskFull) => fail(
            Problem::Other,
            format!(
                "the disk holding the progress store {p} is full while {doing}: free some space and try again"
            ),
        ),
        _ => fail(
            Problem::Other,
            format!(
                "the progress store {p} failed while {doing}: {detail}; if this persists, move the file aside to start an empty store (keep it: it holds your history)"
            ),
        ),
    }
}

/// Check the data directory: it must be a folder; a missing one is created when `create`.
/// Returns whether it exists.
fn check_dir(dir: &Path, create: bool) -> anyhow::Result<bool> {
    let d = dir.display();
    // A file on the way (`--data-dir notes.txt/sub`) would otherwise read "Not a directory".
    if let Some(file) = dir
        .ancestors()
        .skip(1)
        .find(|a| a.metadata().is_ok_and(|m| !m.is_dir()))
    {
        return Err(fail(
            Problem::Folder,
            format!(
                "cannot use the data directory {d}: {} is a file, not a folder; pass --data-dir DIR (or set MCP_TUTOR_HOME) naming a folder",
                file.display()
            ),
        ));
    }
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => Ok(true),
        Ok(_) => Err(fail(
            Problem::Folder,
            format!(
                "the data directory {d} is a file, not a folder: pass --data-dir DIR (or set MCP_TUTOR_HOME) naming a folder (it is created if missing), or move the file away"
            ),
        )),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if !create {
                return Ok(false);
            }
            std::fs::create_dir_all(dir).map_err(|e| {
                fail(
                    Problem::Folder,
                    format!(
                        "cannot create the data directory {d}: {e}; check that its parent is a writable folder, or choose another with --data-dir DIR or MCP_TUTOR_HOME"
                    ),
                )
            })?;
            Ok(true)
        }
        Err(e) => Err(fail(
            Problem::Folder,
            format!(
                "cannot read the data directory {d}: {e}; check its permissions, or choose another with --data-dir DIR or MCP_TUTOR_HOME"
            ),
        )),
    }
}

fn user_version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.pragma_query_value(None, "user_version", |r| r.get(0))
}

fn refuse_newer(version: i64, path: &Path) -> anyhow::Result<()> {
    if version > SCHEMA_VERSION {
        return Err(fail(
            Problem::Newer,
            format!(
                "the progress store {} was made by a newer mcp-tutor (store version {version}; this one understands up to {SCHEMA_VERSION}): upgrade mcp-tutor, or pass --data-dir DIR to use another folder; the store was not touched",
                path.display()
            ),
        ));
    }
    Ok(())
}

/// Open the store for reading and writing, creating or migrating it as needed.
pub(super) fn open_rw(data_dir: &Path) -> anyhow::Result<(Connection, PathBuf)> {
    check_dir(data_dir, true)?;
    let path = data_dir.join(DB_FILE);
    if path.is_dir() {
        return Err(fail(
            Problem::Folder,
            format!(
                "{} is a folder, where the progress store file belongs: move it away, or pass --data-dir DIR",
                path.display()
            ),
        ));
    }
    let conn = Connection::open(&path).map_err(|e| explain(e, &path, "saving progress"))?;
    let ex = |e| explain(e, &path, "saving progress");
    conn.busy_timeout(LOCK_WAIT).map_err(ex)?;
    let version = user_version(&conn).map_err(ex)?;
    refuse_newer(version, &path)?;
    // WAL lets a reader (stats) run beside a writer; FULL makes each commit durable.
    conn.pragma_update(None, "journal_mode", "WAL")
        .map_err(ex)?;
    conn.pragma_update(None, "synchronous", "FULL")
        .map_err(ex)?;
    if version < SCHEMA_VERSION {
        migrate(&conn, &path, version)?;
    }
    verify(&conn, &path)?;
    probe_write(&conn, &path)?;
    Ok((conn, path))
}

/// Find out now, not after the user's first answer, whether a review could be saved: write
/// inside a transaction and roll it back.
fn probe_write(conn: &Connection, path: &Path) -> anyhow::Result<()> {
    let ex = |e| explain(e, path, "saving progress");
    let tx =
        rusqlite::Transaction::new_unchecked(conn, TransactionBehavior::Immediate).map_err(ex)?;
    tx.execute(
        "INSERT OR REPLACE INTO settings(key, value) VALUES ('write-check', '')",
        [],
    )
    .map_err(ex)?;
    tx.rollback().map_err(ex)
}

/// Open the store read-only. A missing store reads as empty (nothing is created); a folder
/// nobody may write to still works (SQLite is told the file cannot change).
pub(super) fn open_ro(data_dir: &Path) -> anyhow::Result<(Connection, PathBuf)> {
    let exists = check_dir(data_dir, false)?;
    let path = data_dir.join(DB_FILE);
    let ex = |e| explain(e, &path, "reading it");
    if !exists || !path.exists() {
        let conn = Connection::open_in_memory().map_err(ex)?;
        conn.execute_batch(SCHEMA).map_err(ex)?;
        return Ok((conn, path));
    }
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let opened = Connection::open_with_flags(&path, flags).and_then(|c| {
        c.busy_timeout(LOCK_WAIT)?;
        user_version(&c).map(|v| (c, v))
    });
    let (conn, version) = match opened {
        Ok(ok) => ok,
        Err(e)
            if !matches!(
                e.sqlite_error_code(),
                Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt)
            ) =>
        {
            // Reading a WAL store needs its `-shm` file; in a read-only folder it cannot be
            // created, so read the file as it stands (no other writer can be using it there).
            let uri = format!("file:{}?immutable=1", uri_path(&path));
            let c =
                Connection::open_with_flags(uri, flags | OpenFlags::SQLITE_OPEN_URI).map_err(ex)?;
            let v = user_version(&c).map_err(ex)?;
            (c, v)
        }
        Err(e) => return Err(ex(e)),
    };
    refuse_newer(version, &path)?;
    verify(&conn, &path)?;
    Ok((conn, path))
}

/// A path as the path part of an SQLite `file:` URI.
fn uri_path(path: &Path) -> String {
    let mut out = String::new();
    for c in path.to_string_lossy().chars() {
        match c {
            '%' => out.push_str("%25"),
            '?' => out.push_str("%3f"),
            '#' => out.push_str("%23"),
            c => out.push(c),
        }
    }
    out
}

/// Back the old store up, then bring it to [`SCHEMA_VERSION`] in one transaction.
fn migrate(conn: &Connection, path: &Path, from: i64) -> anyhow::Result<()> {
    let ex = |e| explain(e, path, "upgrading it");
    let has_tables: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'",
            [],
            |r| r.get(0),
        )
        .map_err(ex)?;
    if has_tables > 0 {
        let backup = backup_path(path, from);
        // VACUUM INTO writes a consistent copy, including what is still in the WAL.
        conn.execute("VACUUM INTO ?1", [backup.to_string_lossy()])
            .map_err(|e| {
                let e = explain(e, &backup, "backing the store up before upgrading it");
                e.context(format!(
                    "the progress store {} needs an upgrade, and its backup copy could not be written; nothing was changed",
                    path.display()
                ))
            })?;
    }
    let tx =
        rusqlite::Transaction::new_unchecked(conn, TransactionBehavior::Immediate).map_err(ex)?;
    // Another process may have migrated while this one waited for the lock.
    let now = user_version(&tx).map_err(ex)?;
    for step in MIGRATIONS.iter().skip(now.max(0) as usize) {
        tx.execute_batch(step).map_err(ex)?;
    }
    tx.pragma_update(None, "user_version", SCHEMA_VERSION)
        .map_err(ex)?;
    tx.commit().map_err(ex)?;
    Ok(())
}

/// `progress.sqlite3.v0-backup` beside the store, or with a timestamp when that exists.
fn backup_path(path: &Path, from: i64) -> PathBuf {
    let name = format!("{DB_FILE}.v{from}-backup");
    let first = path.with_file_name(&name);
    if !first.exists() {
        return first;
    }
    let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%S");
    path.with_file_name(format!("{name}-{stamp}-{}", std::process::id()))
}

/// (name, declared type, not null, has default) of each column of `table`.
type Column = (String, String, bool, bool);

fn columns(conn: &Connection, table: &str) -> rusqlite::Result<Vec<Column>> {
    let mut stmt = conn.prepare(&format!("PRAGMA table_info({table})"))?;
    let rows = stmt.query_map([], |r| {
        Ok((
            r.get::<_, String>(1)?,
            r.get::<_, String>(2)?.to_ascii_uppercase(),
            r.get::<_, bool>(3)?,
            r.get::<_, Option<String>>(4)?.is_some(),
        ))
    })?;
    rows.collect()
}

/// Compare every table with the layout this build creates at the store's version, before any
/// question is asked (a store opened read-only is read at its own version, never migrated).
fn verify(conn: &Connection, path: &Path) -> anyhow::Result<()> {
    let ex = |e| explain(e, path, "checking its layout");
    let version = user_version(conn).map_err(ex)?.clamp(1, SCHEMA_VERSION);
    let reference = Connection::open_in_memory().map_err(ex)?;
    for step in &MIGRATIONS[..version as usize] {
        reference.execute_batch(step).map_err(ex)?;
    }
    let tables: Vec<String> = reference
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid")
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
        .map_err(ex)?;
    let p = path.display();
    let changed = |what: String| {
        fail(
            Problem::Layout,
            format!(
                "the progress store {p} does not have the layout this mcp-tutor writes ({what}); it was changed outside mcp-tutor: restore a backup (e.g. {DB_FILE}.v0-backup beside it), or move the file aside to start an empty store"
            ),
        )
    };
    for table in tables.iter().map(String::as_str) {
        let want = columns(&reference, table).map_err(ex)?;
        let have = columns(conn, table).map_err(ex)?;
        if have.is_empty() {
            return Err(changed(format!("table `{table}` is missing")));
        }
        for (name, ty, notnull, _) in &want {
            match have.iter().find(|c| &c.0 == name) {
                None => return Err(changed(format!("table `{table}` has no column `{name}`"))),
                Some(c) if &c.1 != ty || c.2 != *notnull => {
                    return Err(changed(format!(
                        "column `{table}.{name}` is `{} {}`, expected `{ty} {}`",
                        c.1,
                        if c.2 { "NOT NULL" } else { "NULL" },
                        if *notnull { "NOT NULL" } else { "NULL" }
                    )));
                }
                Some(_) => {}
            }
        }
        // An added column is harmless unless it would make our inserts fail.
        if let Some(extra) = have
            .iter()
            .find(|c| c.2 && !c.3 && !want.iter().any(|w| w.0 == c.0))
        {
            return Err(changed(format!(
                "table `{table}` has an extra required column `{}`",
                extra.0
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::{NewReview, ReviewMode, Store};
    use super::*;
    use crate::grader::Rating;

    fn raw(dir: &Path) -> Connection {
        Connection::open(dir.join(DB_FILE)).unwrap()
    }

    fn one_review(s: &Store) {
        s.record(&NewReview::new(
            "d/c",
            Rating::Good,
            ReviewMode::Review,
            chrono::Utc::now(),
        ))
        .unwrap();
    }

    #[test]
    fn a_store_from_a_newer_mcp_tutor_is_refused_untouched() {
        let dir = tempfile::tempdir().unwrap();
        one_review(&Store::open(dir.path()).unwrap());
        raw(dir.path())
            .pragma_update(None, "user_version", 99)
            .unwrap();
        for e in [
            Store::open(dir.path()).err().unwrap(),
            Store::open_read_only(dir.path()).err().unwrap(),
        ] {
            let msg = e.to_string();
            assert!(msg.contains("made by a newer mcp-tutor"), "{msg}");
            assert!(msg.contains(&dir.path().join(DB_FILE).display().to_string()));
            assert!(msg.contains("upgrade mcp-tutor"), "{msg}");
        }
        let v: i64 = user_version(&raw(dir.path())).unwrap();
        assert_eq!(v, 99);
    }

    #[test]
    fn an_unversioned_store_is_backed_up_then_migrated() {
        let dir = tempfile::tempdir().unwrap();
        let c = raw(dir.path());
        c.execute_batch(SCHEMA).unwrap();
        c.execute(
            "INSERT INTO reviews (card, at_ms, rating, mode, scheduled) VALUES ('d/c', 0, 'good', 'review', 1)",
            [],
        )
        .unwrap();
        drop(c);
        let s = Store::open(dir.path()).unwrap();
        assert_eq!(s.reviews().unwrap().len(), 1);
        assert_eq!(user_version(&s.conn).unwrap(), SCHEMA_VERSION);
        let backup = dir.path().join(format!("{DB_FILE}.v0-backup"));
        let b = Connection::open(&backup).unwrap();
        assert_eq!(user_version(&b).unwrap(), 0, "the backup is the old store");
        let n: i64 = b
            .query_row("SELECT COUNT(*) FROM reviews", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 1);
        // Opening again neither migrates nor backs up again.
        drop(s);
        Store::open(dir.path()).unwrap();
        let backups = std::fs::read_dir(dir.path())
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .file_name()
                    .to_string_lossy()
                    .contains("backup")
            })
            .count();
        assert_eq!(backups, 1);
    }

    #[test]
    fn a_fresh_store_gets_the_current_version_and_no_backup() {
        let dir = tempfile::tempdir().unwrap();
        let s = Store::open(dir.path()).unwrap();
        assert_eq!(user_version(&s.conn).unwrap(), SCHEMA_VERSION);
        assert!(!dir.path().join(format!("{DB_FILE}.v0-backup")).exists());
    }

    #[test]
    fn a_changed_column_is_reported_at_open_with_the_path() {
        let dir = tempfile::tempdir().unwrap();
        one_review(&Store::open(dir.path()).unwrap());
        raw(dir.path())
            .execute_batch("ALTER TABLE reviews RENAME COLUMN score TO score_x")
            .unwrap();
        for e in [
            Store::open(dir.path()).err().unwrap(),
            Store::open_read_only(dir.path()).err().unwrap(),
        ] {
            let msg = e.to_string();
            assert!(msg.contains("has no column `score`"), "{msg}");
            assert!(msg.contains(&dir.path().join(DB_FILE).display().to_string()));
            assert!(msg.contains("move the file aside"), "{msg}");
            assert!(!msg.contains("SELECT"), "no SQL in messages: {msg}");
        }
    }

    #[test]
    fn a_file_where_the_data_directory_should_be_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("not-a-dir");
        std::fs::write(&file, "x").unwrap();
        for e in [
            Store::open(&file).err().unwrap(),
            Store::open_read_only(&file).err().unwrap(),
        ] {
            let msg = e.to_string();
            assert!(
                msg.contains(&format!("{} is a file, not a folder", file.display())),
                "{msg}"
            );
            assert!(msg.contains("--data-dir"), "{msg}");
        }
        let e = Store::open(&file.join("sub")).err().unwrap().to_string();
        assert!(
            e.contains(&format!("{} is a file, not a folder", file.display())),
            "{e}"
        );
    }

    #[test]
    fn reading_a_missing_store_creates_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("never-used");
        let s = Store::open_read_only(&missing).unwrap();
        assert!(s.reviews().unwrap().is_empty());
        assert!(!missing.exists());
    }

    #[test]
    fn a_damaged_file_is_named_with_what_to_do() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(DB_FILE), vec![b'x'; 4096]).unwrap();
        let msg = Store::open(dir.path()).err().unwrap().to_string();
        assert!(
            msg.contains("damaged or is not an mcp-tutor store"),
            "{msg}"
        );
        assert!(msg.contains(DB_FILE));
    }
}
