//! The robot's journal and files (a local Maildir, answers into a
//! directory): a game whose record cannot be written stops, alone, and
//! takes its first move only once it can; plans not done are finished in
//! the order their mails arrived; no file under the data directory is
//! readable by others or holds a token in the clear, kills included; a
//! store of an earlier build is tightened and its temporary files removed.

mod robot_common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use robot_common::{KILL_STEPS, replay, robot_once, token_in};

struct Local {
    _dir: tempfile::TempDir,
    root: PathBuf,
    config: PathBuf,
    seq: u32,
}

/// An answer the robot sent.
#[derive(Debug)]
struct Answer {
    to: String,
    message_id: String,
    in_reply_to: String,
    body: String,
    /// The record attached, if any.
    record: Option<String>,
}

impl Local {
    fn new() -> Local {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        for sub in ["in/new", "in/cur", "in/tmp", "out"] {
            std::fs::create_dir_all(root.join(sub)).unwrap();
        }
        let config = root.join("robot.yaml");
        std::fs::write(
            &config,
            format!(
                "robot:\n  address: robot@yam.test\ndata: {d}/data\noutgoing:\n  directory:\n    path: {d}/out\nincoming:\n  maildir:\n    path: {d}/in\nlimits:\n  per_sender_per_hour: 1000\n",
                d = root.display()
            ),
        )
        .unwrap();
        Local {
            _dir: dir,
            root,
            config,
            seq: 0,
        }
    }

    fn data(&self) -> PathBuf {
        self.root.join("data")
    }

    /// Delivers a plain mail with Message-ID `id`.
    fn deliver_as(&mut self, id: &str, from: &str, subject: &str, body: &str) {
        self.seq += 1;
        let raw = format!(
            "From: {from}\r\nTo: robot@yam.test\r\nMessage-ID: <{id}>\r\nSubject: {subject}\r\n\r\n{}\r\n",
            body.replace('\n', "\r\n")
        );
        std::fs::write(
            self.root
                .join("in/new")
                .join(format!("{:06}.test", self.seq)),
            raw,
        )
        .unwrap();
    }

    fn deliver(&mut self, from: &str, subject: &str, body: &str) -> String {
        let id = format!("m{}@player.test", self.seq + 1);
        self.deliver_as(&id, from, subject, body);
        id
    }

    /// Mails not yet dealt with (dealt with, a mail is marked seen).
    fn waiting(&self) -> usize {
        let unseen = |e: &std::fs::DirEntry| {
            !e.file_name()
                .to_string_lossy()
                .rsplit_once(":2,")
                .is_some_and(|(_, flags)| flags.contains('S'))
        };
        std::fs::read_dir(self.root.join("in/new")).unwrap().count()
            + std::fs::read_dir(self.root.join("in/cur"))
                .unwrap()
                .flatten()
                .filter(unseen)
                .count()
    }

    fn sent(&self) -> Vec<Answer> {
        let mut out = Vec::new();
        for e in std::fs::read_dir(self.root.join("out")).unwrap().flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "eml") {
                let raw = std::fs::read(&p).unwrap();
                let record = robot_common::parse(&raw).record;
                let m = mail_parser::MessageParser::default().parse(&raw).unwrap();
                out.push(Answer {
                    to: String::from_utf8_lossy(&raw)
                        .lines()
                        .find(|l| l.starts_with("To:"))
                        .unwrap_or_default()
                        .to_owned(),
                    message_id: m.message_id().unwrap_or_default().to_owned(),
                    in_reply_to: m.in_reply_to().as_text().unwrap_or_default().to_owned(),
                    body: m.body_text(0).map(|t| t.into_owned()).unwrap_or_default(),
                    record,
                });
            }
        }
        out
    }

    fn answers_to(&self, id: &str) -> Vec<Answer> {
        self.sent()
            .into_iter()
            .filter(|a| a.in_reply_to == id)
            .collect()
    }

    fn run(&self) -> Output {
        let out = robot_once(&self.config, &[]);
        assert!(out.status.success(), "{}", stderr(&out));
        out
    }

    /// Registers `who` and returns its token.
    fn register(&mut self, who: &str) -> String {
        let id = self.deliver(who, "help", "help");
        self.run();
        self.answers_to(&id)
            .iter()
            .find_map(|a| token_in(&a.body))
            .expect("a token")
    }

    /// A new solo Genghis Khan game of `who`, its layout drawn: its id.
    fn solo_game(&mut self, who: &str, token: &str) -> String {
        let before = self.games();
        self.deliver(who, "challenge genghis-khan", &format!("token: {token}"));
        self.run();
        let game = self
            .games()
            .into_iter()
            .find(|g| !before.contains(g))
            .expect("a new game");
        self.deliver(
            who,
            &format!("move {game} start #0"),
            &format!("token: {token}\nseed: layout of {who}"),
        );
        self.run();
        game
    }

    fn games(&self) -> Vec<String> {
        let mut ids: Vec<String> = std::fs::read_dir(self.data().join("games"))
            .unwrap()
            .flatten()
            .filter_map(|e| e.file_name().to_str().map(str::to_owned))
            .collect();
        ids.sort();
        ids
    }

    fn record_path(&self, game: &str) -> PathBuf {
        self.data().join("games").join(game).join("record.yam")
    }

    fn plies(&self, game: &str) -> u32 {
        replay(&std::fs::read_to_string(self.record_path(game)).unwrap()).plies()
    }
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Every file and folder under `dir` (not following links), with its mode
/// and, for files, its contents.
fn tree(dir: &Path) -> BTreeMap<PathBuf, (u32, Option<Vec<u8>>)> {
    use std::os::unix::fs::PermissionsExt;
    let mut out = BTreeMap::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let meta = std::fs::symlink_metadata(&folder).unwrap();
        out.insert(folder.clone(), (meta.permissions().mode() & 0o777, None));
        for e in std::fs::read_dir(&folder).unwrap().flatten() {
            let path = e.path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                folders.push(path);
            } else {
                let contents = meta.is_file().then(|| std::fs::read(&path).unwrap());
                out.insert(path, (meta.permissions().mode() & 0o777, contents));
            }
        }
    }
    out
}

/// No file or folder of `tree` can be read (or entered) by group or others.
fn assert_private(tree: &BTreeMap<PathBuf, (u32, Option<Vec<u8>>)>, when: &str) {
    let open: Vec<String> = tree
        .iter()
        .filter(|(_, (mode, _))| mode & 0o077 != 0)
        .map(|(p, (mode, _))| format!("{} {mode:o}", p.display()))
        .collect();
    assert!(open.is_empty(), "{when}: readable by others: {open:#?}");
    assert!(tree.len() > 5, "{when}: a store was walked");
}

/// No file of `tree` holds `token`.
fn assert_no_token(tree: &BTreeMap<PathBuf, (u32, Option<Vec<u8>>)>, token: &str, when: &str) {
    assert_eq!(token.len(), 16, "a token");
    let token = token.as_bytes();
    for (path, (_, contents)) in tree {
        if let Some(bytes) = contents {
            assert!(
                !bytes.windows(token.len()).any(|w| w == token),
                "{when}: {} holds the token in the clear",
                path.display()
            );
        }
    }
}

/// A file the robot cannot write, even as root: immutable (`chattr +i`)
/// where the file system and the user allow it, else (not root) in a
/// folder without write permission. Undone when dropped.
struct Unwritable {
    file: PathBuf,
    immutable: bool,
}

impl Unwritable {
    fn make(file: &Path) -> Option<Unwritable> {
        let immutable = std::process::Command::new("chattr")
            .arg("+i")
            .arg(file)
            .status()
            .is_ok_and(|s| s.success());
        let guard = Unwritable {
            file: file.to_path_buf(),
            immutable,
        };
        if !immutable {
            use std::os::unix::fs::PermissionsExt;
            let dir = file.parent()?;
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o500)).ok()?;
        }
        // Really unwritable: replacing it fails as the robot's would.
        let probe = file.with_file_name(".probe");
        let refused = std::fs::write(&probe, b"x")
            .and_then(|()| std::fs::rename(&probe, file))
            .is_err();
        let _ = std::fs::remove_file(&probe);
        refused.then_some(guard)
    }
}

impl Drop for Unwritable {
    fn drop(&mut self) {
        if self.immutable {
            let _ = std::process::Command::new("chattr")
                .arg("-i")
                .arg(&self.file)
                .status();
        } else if let Some(dir) = self.file.parent() {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700));
        }
    }
}

#[test]
fn a_game_whose_record_cannot_be_written_takes_no_second_move_and_the_others_go_on() {
    let mut local = Local::new();
    let ann = local.register("ann@player.test");
    let bo = local.register("bo@player.test");
    let game_a = local.solo_game("ann@player.test", &ann);
    let game_b = local.solo_game("bo@player.test", &bo);
    assert_eq!((local.plies(&game_a), local.plies(&game_b)), (0, 0));
    let record_a = local.record_path(&game_a);
    let before_a = std::fs::read_to_string(&record_a).unwrap();
    let Some(unwritable) = Unwritable::make(&record_a) else {
        panic!(
            "cannot make {} unwritable here (chattr +i, or a read-only folder when not root)",
            record_a.display()
        );
    };
    // Ann's move, Bo's move, then Ann's second mail for the same ply.
    let first = local.deliver(
        "ann@player.test",
        &format!("move {game_a} draw #0"),
        &format!("token: {ann}\nseed: the first"),
    );
    let bo_move = local.deliver(
        "bo@player.test",
        &format!("move {game_b} draw #0"),
        &format!("token: {bo}\nseed: bo's"),
    );
    let second = local.deliver(
        "ann@player.test",
        &format!("move {game_a} draw #0"),
        &format!("token: {ann}\nseed: the second"),
    );
    let out = robot_once(&local.config, &[]);
    let log = stderr(&out);
    assert!(!out.status.success(), "unfinished work is said: {log}");
    assert!(log.contains("blocked"), "{log}");
    assert!(log.contains("waits, undecided"), "{log}");
    // Nothing of Ann's game was announced, nor written.
    assert!(local.answers_to(&first).is_empty(), "{log}");
    assert!(local.answers_to(&second).is_empty(), "{log}");
    assert_eq!(std::fs::read_to_string(&record_a).unwrap(), before_a);
    // Bo's game went on.
    assert_eq!(local.plies(&game_b), 1);
    assert_eq!(local.answers_to(&bo_move).len(), 1);
    assert_eq!(local.waiting(), 2, "Ann's two mails wait in the mailbox");

    // Still unwritable: Bo plays on, Ann's mails wait; nothing is said twice.
    let bo_again = local.deliver(
        "bo@player.test",
        &format!("move {game_b} draw #1"),
        &format!("token: {bo}"),
    );
    let out = robot_once(&local.config, &[]);
    let log = stderr(&out);
    assert!(!out.status.success());
    assert!(!log.contains("blocked at"), "said once: {log}");
    assert!(!log.contains("waits, undecided"), "said once: {log}");
    assert_eq!(local.plies(&game_b), 2);
    assert_eq!(local.answers_to(&bo_again).len(), 1);
    assert_eq!(local.waiting(), 2);
    assert!(local.answers_to(&second).is_empty());

    // Writable again: the first move only, then the second mail, refused
    // as written for a board that has moved on.
    drop(unwritable);
    let out = local.run();
    let log = stderr(&out);
    assert!(log.contains("done, after it was blocked"), "{log}");
    assert_eq!(local.plies(&game_a), 1, "one move for ply 0");
    let accepted = local.answers_to(&first);
    assert_eq!(accepted.len(), 1);
    assert!(
        !accepted[0].body.contains("Refused"),
        "{}",
        accepted[0].body
    );
    let refused = local.answers_to(&second);
    assert_eq!(refused.len(), 1);
    assert!(
        refused[0]
            .body
            .contains("written at ply 0, but the game is at ply 1"),
        "{}",
        refused[0].body
    );
    assert_eq!(local.waiting(), 0);
    // The record is the one announced for the first mail, and verifies.
    let record = std::fs::read_to_string(&record_a).unwrap();
    assert_eq!(replay(&record).plies(), 1);
    assert_eq!(accepted[0].record.as_deref(), Some(record.as_str()));
    // Nothing more to do.
    let out = local.run();
    assert!(!stderr(&out).contains("blocked"));
    assert_eq!(local.plies(&game_a), 1);
}

/// A store of an earlier build is brought to the normal form of its
/// addresses once, after the plans of its runs are finished (they write the
/// files as that build named them). Until then nothing is decided on it: a
/// player filed under her earlier key would be taken for a stranger and
/// registered again (an attacker helper of the forty-second step). A plan
/// that cannot be finished (a record that cannot be written) holds the
/// step, and the mail waits, unread; once the plan is done, the step is
/// taken and the mail answered.
#[test]
fn a_store_of_an_earlier_build_decides_nothing_before_its_addresses_are_normal() {
    let mut local = Local::new();
    let ann = local.register("ann@player.test");
    let game = local.solo_game("ann@player.test", &ann);
    let record = local.record_path(&game);
    let Some(unwritable) = Unwritable::make(&record) else {
        panic!("cannot make {} unwritable here", record.display());
    };
    local.deliver(
        "ann@player.test",
        &format!("move {game} draw #0"),
        &format!("token: {ann}\nseed: one"),
    );
    let once = || robot_once(&local.config, &[]);
    assert!(!once().status.success(), "setup: the plan is blocked");
    // As an earlier build left it: no note that its addresses are normal.
    let done = record
        .ancestors()
        .nth(3)
        .unwrap()
        .join("robot/addresses.normal");
    std::fs::remove_file(&done).unwrap();
    let stranger = local.deliver("cy@player.test", "help", "help");
    let once = || robot_once(&local.config, &[]);
    let out = once();
    let log = stderr(&out);
    assert!(!out.status.success(), "{log}");
    assert!(log.contains("no mail is read until they are"), "{log}");
    assert!(
        local.answers_to(&stranger).is_empty(),
        "decided before the step: {log}"
    );
    assert!(!done.exists());
    drop(unwritable);
    let log = stderr(&local.run());
    assert!(
        done.exists(),
        "the step is taken once the plan is done: {log}"
    );
    assert_eq!(local.answers_to(&stranger).len(), 1, "{log}");
    assert_eq!(local.plies(&game), 1);
}

/// The robot's journal key of a mail (`robot::mail_keys`) whose text is
/// `help`, as `deliver_as` writes it.
fn key_of(id: &str, from: &str) -> String {
    yam_referee::fair_play::hash::Hash32::of(
        format!("id {id}\nfrom {from}\ntext help\r\n").as_bytes(),
    )
    .to_hex()[..24]
        .to_owned()
}

#[test]
fn plans_not_done_are_finished_in_the_order_their_mails_arrived() {
    let mut local = Local::new();
    // Message-IDs whose journal keys sort against their order of arrival.
    let mut mails: Vec<(String, String)> = Vec::new();
    for n in 0..5 {
        let from = format!("p{n}@player.test");
        let id = (0..)
            .map(|salt| format!("order-{n}-{salt}@player.test"))
            .find(|id| {
                mails
                    .last()
                    .is_none_or(|(last, lfrom)| key_of(id, &from) < key_of(last, lfrom))
            })
            .unwrap();
        mails.push((id, from));
    }
    // The answers cannot go out: every plan stops after its files.
    let out_dir = local.root.join("out");
    std::fs::remove_dir(&out_dir).unwrap();
    std::fs::write(&out_dir, b"not a folder").unwrap();
    for (id, from) in &mails {
        local.deliver_as(id, from, "help", "help");
    }
    let out = robot_once(&local.config, &[]);
    assert!(!out.status.success());
    assert_eq!(
        stderr(&out).matches("blocked at").count(),
        5,
        "{}",
        stderr(&out)
    );
    std::fs::remove_file(&out_dir).unwrap();
    std::fs::create_dir(&out_dir).unwrap();
    let out = local.run();
    let log = stderr(&out);
    let done: Vec<String> = log
        .lines()
        .filter_map(|l| l.strip_prefix("yam robot: "))
        .filter_map(|l| l.strip_suffix(": done, after it was blocked"))
        .map(str::to_owned)
        .collect();
    let arrived: Vec<String> = mails.iter().map(|(id, from)| key_of(id, from)).collect();
    assert_eq!(done, arrived, "{log}");
    // Each answer is the one to its mail, once.
    for (id, from) in &mails {
        let answers = local.answers_to(id);
        assert_eq!(answers.len(), 1, "{id}");
        assert!(answers[0].to.contains(from.as_str()));
        assert!(answers[0].message_id.contains(&key_of(id, from)));
    }
    assert_eq!(local.waiting(), 0);
}

#[test]
fn no_file_of_the_robot_is_readable_by_others_or_holds_a_token_kills_included() {
    let mut local = Local::new();
    // Registered by a robot killed after the plan's files, then again.
    let hello = local.deliver("ann@player.test", "help", "help");
    let killed = robot_once(&local.config, &[("YAM_ROBOT_KILL_AT", "after-apply")]);
    assert!(!killed.status.success());
    let at_kill = tree(&local.data());
    assert_private(&at_kill, "killed while registering");
    assert!(
        at_kill
            .keys()
            .any(|p| p.extension().is_some_and(|e| e == "plan")),
        "the welcome's plan is there, not done"
    );
    local.run();
    let ann = local
        .answers_to(&hello)
        .iter()
        .find_map(|a| token_in(&a.body))
        .expect("the welcome, after the kill");
    assert_no_token(&at_kill, &ann, "killed while registering");
    // An invitation to a new address carries its token: killed after
    // sending it.
    let challenge = local.deliver(
        "ann@player.test",
        "challenge khan basic bo@player.test",
        &format!("token: {ann}"),
    );
    let killed = robot_once(&local.config, &[("YAM_ROBOT_KILL_AT", "after-send")]);
    assert!(!killed.status.success());
    let at_kill = tree(&local.data());
    assert_private(&at_kill, "killed while inviting");
    let bo = local
        .sent()
        .iter()
        .filter(|a| a.to.contains("bo@player.test"))
        .find_map(|a| token_in(&a.body))
        .expect("the invitation");
    local.run();
    assert_eq!(local.answers_to(&challenge).len(), 1);
    assert_no_token(&at_kill, &ann, "killed while inviting");
    assert_no_token(&at_kill, &bo, "killed while inviting");
    // A solo game, killed at each step of a move.
    let game = local.solo_game("ann@player.test", &ann);
    for (n, step) in KILL_STEPS.iter().enumerate() {
        local.deliver(
            "ann@player.test",
            &format!("move {game} draw #{n}"),
            &format!("token: {ann}\nseed: {step}"),
        );
        let killed = robot_once(&local.config, &[("YAM_ROBOT_KILL_AT", step)]);
        assert!(!killed.status.success(), "{step}");
        let at_kill = tree(&local.data());
        assert_private(&at_kill, step);
        assert_no_token(&at_kill, &ann, step);
        local.run();
        assert_eq!(local.plies(&game), n as u32 + 1, "{step}");
    }
    let end = tree(&local.data());
    assert_private(&end, "at the end");
    for token in [&ann, &bo] {
        assert_no_token(&end, token, "at the end");
    }
    // What is there: records, plans' done markers, players, the lock, keys.
    let names: Vec<String> = end
        .keys()
        .map(|p| p.strip_prefix(local.data()).unwrap().display().to_string())
        .collect();
    for expected in [
        "robot/robot.lock",
        "robot/journal",
        "robot/players",
        "secrets",
    ] {
        assert!(
            names.iter().any(|n| n == expected),
            "{expected}: {names:#?}"
        );
    }
    assert!(names.iter().any(|n| n.ends_with(".done")));
    assert!(names.iter().any(|n| n.ends_with("record.yam")));
    // No plan outlives its done marker.
    assert!(!names.iter().any(|n| n.ends_with(".plan")), "{names:#?}");
}

/// A burst is decided, committed and carried out by groups: a robot
/// killed at any step of a group loses no mail of it, applies each move
/// once and answers each mail, a mail that reads what an earlier one
/// writes sees it, and a mail delivered twice in the same look is the
/// same mail.
#[test]
fn a_robot_killed_in_the_middle_of_a_group_loses_no_mail_and_applies_no_move_twice() {
    let mut local = Local::new();
    let players = ["ann@player.test", "bo@player.test", "cy@player.test"];
    let mut games = Vec::new();
    let mut tokens = Vec::new();
    for who in players {
        let token = local.register(who);
        games.push(local.solo_game(who, &token));
        tokens.push(token);
    }
    for (n, step) in KILL_STEPS.iter().enumerate() {
        let mut ids = Vec::new();
        // A move in each game, then a look at each board in the same
        // look at the mailbox: the second reads what the first writes, so
        // it is decided after the first's group, on the board it makes.
        for half in 0..2 {
            for ((who, token), game) in players.iter().zip(&tokens).zip(&games) {
                let command = if half == 0 {
                    format!("move {game} draw #{n}")
                } else {
                    format!("show {game}")
                };
                let id = local.deliver(who, &command, &format!("token: {token}\nseed: {step}"));
                ids.push(id);
            }
        }
        // The first mail delivered twice.
        let again = ids[0].clone();
        local.deliver_as(
            &again,
            players[0],
            &format!("move {} draw #{n}", games[0]),
            &format!("token: {}\nseed: {step}", tokens[0]),
        );
        let killed = robot_once(&local.config, &[("YAM_ROBOT_KILL_AT", step)]);
        assert!(!killed.status.success(), "{step}: the robot was not killed");
        local.run();
        local.run();
        assert_eq!(local.waiting(), 0, "{step}: every mail is dealt with");
        for id in &ids {
            let answers = local.answers_to(id);
            assert!(!answers.is_empty(), "{step}: {id} is answered");
            assert!(
                answers.iter().all(|a| !a.body.contains("Refused")),
                "{step}: {id} is not refused: {}",
                answers[0].body
            );
            let distinct: std::collections::BTreeSet<&str> =
                answers.iter().map(|a| a.message_id.as_str()).collect();
            assert_eq!(distinct.len(), 1, "{step}: {id}: one Message-ID");
        }
        for ((game, id), show) in games.iter().zip(&ids).zip(&ids[3..]) {
            let plies = n as u32 + 1;
            assert_eq!(local.plies(game), plies, "{step}: each move applied once");
            // The board shown is the one the move made.
            let shown = &local.answers_to(show)[0].body;
            assert!(shown.contains(&format!(", ply {plies}")), "{step}: {shown}");
            assert!(!local.answers_to(id)[0].body.contains("Refused"));
        }
    }
    assert!(
        !tree(&local.data())
            .keys()
            .any(|p| p.to_string_lossy().ends_with(".plan")),
        "no plan outlives its mail"
    );
}

/// Mails of one game in a row are put aside behind each other while the
/// other games' mails fill the group: each is decided on the board the
/// one before made, in their order, none refused as stale.
#[test]
fn a_busy_game_keeps_its_order_while_the_others_go_on() {
    let mut local = Local::new();
    let ann = local.register("ann@player.test");
    let bo = local.register("bo@player.test");
    let a = local.solo_game("ann@player.test", &ann);
    let b = local.solo_game("bo@player.test", &bo);
    let mut ids = Vec::new();
    for ply in 0..3 {
        ids.push(local.deliver(
            "ann@player.test",
            &format!("move {a} draw #{ply}"),
            &format!("token: {ann}\nseed: a {ply}"),
        ));
        if ply == 0 {
            ids.push(local.deliver(
                "bo@player.test",
                &format!("move {b} draw #0"),
                &format!("token: {bo}\nseed: b"),
            ));
        }
        ids.push(local.deliver(
            "bo@player.test",
            &format!("show {b}"),
            &format!("token: {bo}"),
        ));
    }
    local.run();
    assert_eq!(local.waiting(), 0);
    assert_eq!(local.plies(&a), 3);
    assert_eq!(local.plies(&b), 1);
    for id in &ids {
        let answers = local.answers_to(id);
        assert_eq!(answers.len(), 1, "{id}");
        assert!(!answers[0].body.contains("Refused"), "{}", answers[0].body);
    }
}

#[test]
fn a_store_of_an_earlier_build_is_made_private_once_and_left_temporaries_removed() {
    use std::os::unix::fs::PermissionsExt;
    let mut local = Local::new();
    let ann = local.register("ann@player.test");
    let game = local.solo_game("ann@player.test", &ann);
    // As an earlier build left it: folders 0755, files 0644, and the
    // temporary files of atomic writes killed before their rename.
    let data = local.data();
    let temporaries = [
        data.join("games")
            .join(&game)
            .join(".record.yam.tmp-4000001"),
        data.join("robot/journal/.0123456789abcdef01234567.plan.tmp-17"),
        data.join("robot/.robot.lock.tmp-99"),
    ];
    for t in &temporaries {
        std::fs::write(t, b"half a file").unwrap();
    }
    for (path, (_, contents)) in tree(&data) {
        let mode = if contents.is_some() { 0o644 } else { 0o755 };
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
    }
    // Secrets were private in every build; the rest was not.
    for (path, (_, contents)) in tree(&data.join("secrets")) {
        let mode = if contents.is_some() { 0o600 } else { 0o700 };
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
    }
    // An earlier build kept no note that its last run ended cleanly.
    std::fs::remove_file(data.join("robot/ended")).unwrap();
    let out = local.run();
    let log = stderr(&out);
    assert!(
        log.contains("that others could read made private (0600/0700)"),
        "{log}"
    );
    assert!(
        log.contains("3 temporary file(s) left by a killed run removed"),
        "{log}"
    );
    assert_private(&tree(&data), "after the start");
    for t in &temporaries {
        assert!(!t.exists(), "{}", t.display());
    }
    // It goes on as before, and says nothing the next time.
    local.deliver(
        "ann@player.test",
        &format!("move {game} draw #0"),
        &format!("token: {ann}"),
    );
    let out = local.run();
    assert!(!stderr(&out).contains("made private"), "{}", stderr(&out));
    assert!(!stderr(&out).contains("temporary"), "{}", stderr(&out));
    assert_eq!(local.plies(&game), 1);
    assert_private(&tree(&data), "after a move");
}

/// A robot of years started by cron (`--once` a minute) walked its whole
/// store at every start, to tighten what an earlier build left readable
/// and remove the temporary files of killed runs: a run that ended
/// cleanly leaves neither, so the next start walks nothing; a run killed
/// (no note that it ended) has the next start walk the store again.
#[test]
fn a_store_is_walked_at_a_start_only_after_a_run_that_did_not_end_cleanly() {
    let mut local = Local::new();
    let ann = local.register("ann@player.test");
    let game = local.solo_game("ann@player.test", &ann);
    let data = local.data();
    let temporary = data
        .join("games")
        .join(&game)
        .join(".record.yam.tmp-4000001");
    std::fs::write(&temporary, b"half a file").unwrap();
    // The run before ended cleanly: nothing of a killed run can be there,
    // and this one is not looked for.
    local.run();
    assert!(temporary.exists(), "walked after a clean end");
    // A run killed: it left no note, and the next start walks the store.
    std::fs::remove_file(data.join("robot/ended")).unwrap();
    let out = local.run();
    assert!(
        stderr(&out).contains("1 temporary file(s) left by a killed run removed"),
        "{}",
        stderr(&out)
    );
    assert!(!temporary.exists());
}

/// A data directory reached by a symbolic link (`data: /var/lib/yam-robot`,
/// a link to a larger disk) is made private as the folder it is: 0700.
/// The tightening at start read the link's own mode (0777, not a folder)
/// and gave what it points to a file's 0600 through it: a folder its
/// owner can no longer enter, so a robot not run as root fails on every
/// file of its store from then on.
#[test]
fn a_data_directory_behind_a_symbolic_link_stays_a_folder_its_owner_can_enter() {
    use std::os::unix::fs::PermissionsExt;
    let mut local = Local::new();
    let disk = local.root.join("disk").join("yam-robot");
    std::fs::create_dir_all(&disk).unwrap();
    std::fs::set_permissions(&disk, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::os::unix::fs::symlink(&disk, local.data()).unwrap();
    let ann = local.register("ann@player.test");
    let game = local.solo_game("ann@player.test", &ann);
    assert!(local.record_path(&game).is_file(), "the robot went on");
    let mode = std::fs::metadata(&disk).unwrap().permissions().mode() & 0o777;
    assert_eq!(
        mode, 0o700,
        "the data directory behind the link is a folder its owner can enter (mode {mode:o})"
    );
    assert!(
        std::fs::symlink_metadata(local.data())
            .unwrap()
            .file_type()
            .is_symlink(),
        "the link stays a link"
    );
}
