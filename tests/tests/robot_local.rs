//! The robot on a local Maildir, answering into a directory: crash safety
//! (SIGKILL at every step of a mail) and hostile mails. No mail server is
//! needed, so these run everywhere, fast.

mod robot_common;

use std::path::PathBuf;

use robot_common::{Received, parse, replay, robot_once, token_in};

struct Local {
    _dir: tempfile::TempDir,
    root: PathBuf,
    config: PathBuf,
    seq: u32,
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
                "robot:\n  address: robot@yam.test\ndata: {d}/data\noutgoing:\n  directory:\n    path: {d}/out\nincoming:\n  maildir:\n    path: {d}/in\nlimits:\n  per_sender_per_hour: 1000\n  max_mail_bytes: 1048576\n",
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

    fn deliver_raw(&mut self, raw: &[u8]) {
        self.seq += 1;
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
        let raw = format!(
            "From: {from}\r\nTo: robot@yam.test\r\nMessage-ID: <{id}>\r\nSubject: {subject}\r\n\r\n{}\r\n",
            body.replace('\n', "\r\n")
        );
        self.deliver_raw(raw.as_bytes());
        id
    }

    fn waiting(&self) -> usize {
        std::fs::read_dir(self.root.join("in/new")).unwrap().count()
            + std::fs::read_dir(self.root.join("in/cur")).unwrap().count()
    }

    /// Every answer sent, with its recipients' line.
    fn sent(&self) -> Vec<(String, Received)> {
        let mut out = Vec::new();
        for e in std::fs::read_dir(self.root.join("out")).unwrap().flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "eml") {
                let raw = std::fs::read(&p).unwrap();
                let text = String::from_utf8_lossy(&raw);
                let to = text
                    .lines()
                    .find(|l| l.starts_with("To:"))
                    .unwrap_or_default()
                    .to_owned();
                out.push((to, parse(&raw)));
            }
        }
        out
    }

    fn answers_to(&self, id: &str) -> Vec<Received> {
        self.sent()
            .into_iter()
            .map(|(_, r)| r)
            .filter(|r| r.body.contains(id) || r.subject.contains(id))
            .collect()
    }

    fn run(&self) -> std::process::Output {
        let out = robot_once(&self.config, &[]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    /// Registers `who` and returns its token.
    fn register(&mut self, who: &str) -> String {
        self.deliver(who, "help", "help");
        self.run();
        self.sent()
            .into_iter()
            .filter(|(to, _)| to.contains(who))
            .find_map(|(_, r)| token_in(&r.body))
            .expect("a token")
    }

    fn record(&self, game: &str) -> String {
        std::fs::read_to_string(self.root.join("data/games").join(game).join("record.yam")).unwrap()
    }
}

/// The newest game in the store (ids sort by date, then at random: the
/// tests start one game at a time).
fn game_of(local: &Local) -> String {
    let dir = local.root.join("data/games");
    let mut ids: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str().map(str::to_owned))
        .collect();
    ids.sort();
    ids.pop().expect("a game")
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_robot_killed_at_any_step_loses_no_mail_and_applies_no_move_twice() {
    let mut local = Local::new();
    let token = local.register("ann@player.test");
    local.deliver(
        "ann@player.test",
        "challenge genghis-khan",
        &format!("token: {token}\nseed: first words"),
    );
    local.run();
    let game = game_of(&local);
    local.deliver(
        "ann@player.test",
        "move start #0",
        &format!("token: {token}\nseed: layout"),
    );
    local.run();
    let mut plies = replay(&local.record(&game)).plies();
    assert_eq!(plies, 0);
    for (n, step) in ["after-read", "after-apply", "after-send", "after-archive"]
        .iter()
        .enumerate()
    {
        let before = local.sent().len();
        local.deliver(
            "ann@player.test",
            &format!("move draw #{plies}"),
            &format!("token: {token}\nseed: words {n}"),
        );
        let killed = robot_once(&local.config, &[("YAM_ROBOT_KILL_AT", step)]);
        assert!(!killed.status.success(), "{step}: the robot was not killed");
        #[cfg(unix)]
        {
            use std::os::unix::process::ExitStatusExt;
            assert_eq!(killed.status.signal(), Some(9), "{step}: SIGKILL");
        }
        // Restarted, it finishes what the kill interrupted.
        local.run();
        // And once more: nothing is done twice.
        local.run();
        assert_eq!(local.waiting(), 0, "{step}: the mail is archived");
        let after = replay(&local.record(&game)).plies();
        assert_eq!(after, plies + 1, "{step}: the move is applied exactly once");
        plies = after;
        let answers: Vec<Received> = local
            .sent()
            .into_iter()
            .map(|(_, r)| r)
            .filter(|r| r.body.contains("> move draw"))
            .collect();
        let mine: Vec<&Received> = answers
            .iter()
            .filter(|r| r.subject.contains(&format!("#{}", plies - 1)))
            .collect();
        assert!(!mine.is_empty(), "{step}: the answer was sent");
        // A resent answer carries the same Message-ID: a duplicate is
        // recognisable.
        let ids: std::collections::BTreeSet<&str> =
            mine.iter().map(|r| r.message_id.as_str()).collect();
        assert_eq!(ids.len(), 1, "{step}: one Message-ID for the answer");
        assert!(local.sent().len() > before, "{step}");
    }
}

#[test]
fn hostile_and_looping_mails_are_refused_or_ignored_and_the_robot_goes_on() {
    let mut local = Local::new();
    let ann = local.register("ann@player.test");
    let bo = local.register("bo@player.test");
    local.deliver(
        "ann@player.test",
        "challenge khan rescue-khan bo@player.test",
        &format!("token: {ann}"),
    );
    local.run();
    let game = game_of(&local);
    local.deliver(
        "bo@player.test",
        &format!("join {game}"),
        &format!("token: {bo}"),
    );
    local.run();
    let eve = local.register("eve@player.test");
    let sent_before = local.sent().len();

    // Garbage MIME.
    local.deliver_raw(b"\x00\x01\x02 this is not a mail \xff\xfe\r\n\r\n--boundary--\r\n");
    // A mail over the size cap (50 MB).
    let mut big = b"From: ann@player.test\r\nMessage-ID: <big@x>\r\nSubject: show\r\n\r\n".to_vec();
    big.resize(50 << 20, b'a');
    local.deliver_raw(&big);
    // An auto-reply.
    local.deliver_raw(
        b"From: ann@player.test\r\nAuto-Submitted: auto-replied\r\nMessage-ID: <vac@x>\r\nSubject: Out of office\r\n\r\nshow\r\n",
    );
    // Mail from the robot's own address.
    local.deliver("robot@yam.test", "show", "show");
    // A forged From: a real player's address without the token.
    local.deliver("ann@player.test", &format!("resign {game}"), "resign");
    // A wrong token.
    local.deliver(
        "ann@player.test",
        &format!("resign {game}"),
        "token: 0000000000000000",
    );
    // A command for a game the sender is not in.
    local.deliver(
        "eve@player.test",
        &format!("resign {game}"),
        &format!("token: {eve}"),
    );
    // Then a legal mail: the robot still answers.
    local.deliver(
        "ann@player.test",
        &format!("show {game}"),
        &format!("token: {ann}"),
    );
    let out = local.run();
    let log = stderr(&out);
    for reason in [
        "not a mail message",
        "more than the 1048576 read",
        "Auto-Submitted: auto-replied",
        "robot's own address",
        "the mail carries no `token: XXXX` line",
        "the token is wrong",
    ] {
        assert!(log.contains(reason), "no log line for {reason:?}:\n{log}");
    }
    assert_eq!(local.waiting(), 0, "every mail is dealt with");
    let new: Vec<(String, Received)> = local.sent().into_iter().collect();
    // Answers: two refusals to ann (no token, wrong token), eve's refusal,
    // ann's board; nothing to the garbage, the big mail, the auto-reply or
    // the robot itself.
    assert_eq!(new.len(), sent_before + 4, "{:#?}", &new[sent_before..]);
    let refused: Vec<&Received> = new
        .iter()
        .map(|(_, r)| r)
        .filter(|r| r.body.starts_with("Refused"))
        .collect();
    assert_eq!(refused.len(), 2);
    assert!(new.iter().any(|(to, r)| {
        to.contains("eve")
            && r.body
                .contains(&format!("Refused: you are not a player of {game}"))
    }));
    // The game went on untouched: nobody resigned.
    let r = replay(&local.record(&game));
    assert!(r.ending().is_none());
    assert!(new.iter().any(|(to, r)| to.contains("ann") && r.body.contains("white (ann@player.test) to move")));
}

#[test]
fn a_stale_move_is_refused_and_the_fresh_one_accepted() {
    let mut local = Local::new();
    let ann = local.register("ann@player.test");
    // The layout is not drawn in the mail that opens the game: the robot
    // drew its chains after reading that mail's seed.
    local.deliver(
        "ann@player.test",
        "challenge genghis-khan",
        &format!("token: {ann}\nmove start\nseed: chosen with the chains"),
    );
    local.run();
    last_to(
        &local,
        "ann",
        "Refused: the Foe rows are laid out by a mail after the one that opened the game",
    );
    let game = game_of(&local);
    assert_eq!(replay(&local.record(&game)).events().len(), 2);
    // The Foe layout comes first, from the player's first move mail.
    local.deliver("ann@player.test", "move draw #0", &format!("token: {ann}"));
    local.run();
    last_to(
        &local,
        "ann",
        "Refused: the Foe rows are not laid out yet; expected `move start`",
    );
    local.deliver(
        "ann@player.test",
        "move start #0",
        &format!("token: {ann}\nseed: my layout"),
    );
    local.run();
    last_to(&local, "ann", "with the seed \"my layout\"");
    local.deliver("ann@player.test", "move draw #5", &format!("token: {ann}"));
    local.run();
    assert_eq!(replay(&local.record(&game)).plies(), 0);
    assert!(local.answers_to("move draw #5").iter().any(|r| {
        r.body
            .contains("written at ply 5, but the game is at ply 0")
    }));
    local.deliver("ann@player.test", "move draw #0", &format!("token: {ann}"));
    local.run();
    assert_eq!(replay(&local.record(&game)).plies(), 1);
}

#[test]
fn silence_brings_reminders_then_a_forfeit_claim() {
    let mut local = Local::new();
    let ann = local.register("ann@player.test");
    let bo = local.register("bo@player.test");
    local.deliver(
        "ann@player.test",
        "challenge khan basic bo@player.test",
        &format!("token: {ann}"),
    );
    local.run();
    let game = game_of(&local);
    local.deliver(
        "bo@player.test",
        &format!("join {game}"),
        &format!("token: {bo}"),
    );
    local.run();
    let start =
        std::fs::read_to_string(local.root.join("data/games").join(&game).join("robot.yaml"))
            .unwrap();
    let last: u64 = start
        .lines()
        .find_map(|l| l.strip_prefix("last_activity: "))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let at = |days: u64| (last + days * 86_400 + 60).to_string();
    let reminders = |local: &Local| {
        local
            .sent()
            .into_iter()
            .filter(|(to, r)| to.contains("ann") && r.body.starts_with("Reminder"))
            .count()
    };
    for (days, expected) in [(13, 0), (14, 1), (20, 1), (28, 2), (35, 3), (39, 3)] {
        let out = robot_once(&local.config, &[("YAM_ROBOT_NOW", &at(days))]);
        assert!(out.status.success());
        assert_eq!(reminders(&local), expected, "day {days}");
    }
    let out = robot_once(&local.config, &[("YAM_ROBOT_NOW", &at(40))]);
    assert!(
        stderr(&out).contains("forfeit claimed against ann@player.test"),
        "{}",
        stderr(&out)
    );
    let r = replay(&local.record(&game));
    assert_eq!(r.claims().len(), 1);
    assert!(r.claims()[0].reason.contains("40 days"));
    // Once only.
    robot_once(&local.config, &[("YAM_ROBOT_NOW", &at(41))]);
    assert_eq!(replay(&local.record(&game)).claims().len(), 1);
}

/// The last answer to `who`.
fn last_to(local: &Local, who: &str, containing: &str) -> Received {
    local
        .sent()
        .into_iter()
        .filter(|(to, r)| to.contains(who) && r.body.contains(containing))
        .map(|(_, r)| r)
        .next_back()
        .unwrap_or_else(|| panic!("no answer to {who} containing {containing:?}"))
}

#[test]
fn joins_draws_and_takebacks_are_refused_when_illegal_and_done_when_legal() {
    let mut local = Local::new();
    let ann = local.register("ann@player.test");
    let bo = local.register("bo@player.test");
    let eve = local.register("eve@player.test");
    local.deliver(
        "ann@player.test",
        "challenge khan basic bo@@player..test",
        &format!("token: {ann}"),
    );
    local.run();
    last_to(&local, "ann", "is not a mail address");
    local.deliver(
        "ann@player.test",
        "challenge khan basic bo@player.test",
        &format!("token: {ann}"),
    );
    local.run();
    let game = game_of(&local);
    // Only the invited player joins.
    local.deliver(
        "ann@player.test",
        &format!("join {game}"),
        &format!("token: {ann}"),
    );
    local.deliver(
        "eve@player.test",
        &format!("join {game}"),
        &format!("token: {eve}"),
    );
    local.run();
    last_to(
        &local,
        "ann",
        &format!("Refused: {game} is your own challenge"),
    );
    last_to(
        &local,
        "eve",
        &format!("Refused: {game} is a challenge to another player"),
    );
    local.deliver(
        "bo@player.test",
        &format!("join {game}"),
        &format!("token: {bo}"),
    );
    local.run();
    last_to(&local, "bo", "The game begins");
    // A take-back with no move to take back is refused; after a move it is
    // offered, and accepted it restores the position.
    local.deliver(
        "ann@player.test",
        "offer takeback",
        &format!("token: {ann}"),
    );
    local.run();
    last_to(&local, "ann", "Refused: you have no move to take back");
    local.deliver(
        "ann@player.test",
        "move Ng3-f3 #0",
        &format!("token: {ann}"),
    );
    local.run();
    assert_eq!(replay(&local.record(&game)).plies(), 1);
    local.deliver("bo@player.test", "accept takeback", &format!("token: {bo}"));
    local.run();
    last_to(
        &local,
        "bo",
        "Refused: no take-back offer by the other side",
    );
    local.deliver(
        "ann@player.test",
        "offer takeback",
        &format!("token: {ann}"),
    );
    local.deliver("bo@player.test", "accept takeback", &format!("token: {bo}"));
    local.run();
    assert_eq!(replay(&local.record(&game)).plies(), 0);
    // Draws: no offer to accept is refused; an offer accepted ends the game.
    local.deliver("bo@player.test", "accept draw", &format!("token: {bo}"));
    local.run();
    last_to(&local, "bo", "Refused: no draw offer by the other side");
    local.deliver("ann@player.test", "offer draw", &format!("token: {ann}"));
    local.deliver("bo@player.test", "accept draw", &format!("token: {bo}"));
    local.run();
    let r = replay(&local.record(&game));
    assert!(
        r.ending().is_some_and(|e| e.reason.contains("draw")),
        "{:?}",
        r.ending()
    );
    last_to(&local, "bo", "Game over");
}

#[test]
fn a_mail_delivered_twice_is_obeyed_once_and_a_roll_is_never_taken_back() {
    let mut local = Local::new();
    let ann = local.register("ann@player.test");
    local.deliver(
        "ann@player.test",
        "challenge genghis-khan",
        &format!("token: {ann}"),
    );
    local.run();
    let game = game_of(&local);
    local.deliver("ann@player.test", "move start", &format!("token: {ann}"));
    local.run();
    // The same mail twice (as a retrying server delivers it: same
    // Message-ID, other Received lines).
    let mail = |hop: &str| {
        format!(
            "Received: from {hop}\r\nFrom: ann@player.test\r\nMessage-ID: <twice@player.test>\r\nSubject: move draw\r\n\r\ntoken: {ann}\r\n"
        )
    };
    local.deliver_raw(mail("relay-1").as_bytes());
    local.deliver_raw(mail("relay-2").as_bytes());
    let before = local.sent().len();
    local.run();
    assert_eq!(replay(&local.record(&game)).plies(), 1);
    assert_eq!(local.sent().len(), before + 1, "one answer");
    assert_eq!(local.waiting(), 0);
    // A take-back would undo a card drawn: refused.
    local.deliver(
        "ann@player.test",
        "offer takeback",
        &format!("token: {ann}"),
    );
    local.run();
    last_to(&local, "ann", "Refused: a take-back cannot undo a roll");
    assert_eq!(replay(&local.record(&game)).plies(), 1);
}

#[test]
fn a_castle_siege_game_between_two_addresses_is_refereed_to_its_end() {
    use yam_cli::autoplay::{Intent, choose};
    use yam_referee::castle_siege::Policy;
    let mut local = Local::new();
    let ann = local.register("ann@player.test");
    let bo = local.register("bo@player.test");
    local.deliver(
        "ann@player.test",
        "challenge castle-siege standard bo@player.test",
        &format!("token: {ann}"),
    );
    local.run();
    let game = game_of(&local);
    local.deliver(
        "bo@player.test",
        &format!("join {game}"),
        &format!("token: {bo}"),
    );
    local.run();
    let tokens = [("ann@player.test", ann), ("bo@player.test", bo)];
    let mut turns = 0u64;
    let mut sealed_seen = false;
    loop {
        let record = local.record(&game);
        let replay = replay(&record);
        if replay.ending().is_some() {
            break;
        }
        turns += 1;
        assert!(turns < 400, "the game did not end");
        let to_move = replay.to_move_key().expect("someone is to move");
        let seat = replay.seat_of(&to_move).unwrap();
        // Who is who: the player tag of the seat names the address.
        let tag = ["Defender", "Attacker"][seat];
        let line = record
            .lines()
            .find(|l| l.starts_with(&format!("[{tag} ")))
            .unwrap();
        let (address, token) = tokens
            .iter()
            .find(|(a, _)| line.contains(a.split('@').next().unwrap()))
            .unwrap();
        let words = match choose(&replay, seat, Policy::Eager, turns).unwrap() {
            Intent::Seal(setup) => vec![setup],
            Intent::Orders(orders) => orders,
            Intent::Reveal(_) => panic!("the robot reveals by itself"),
        };
        local.deliver(
            address,
            &format!("move {game} {}", words.join(" ")),
            &format!("token: {token}\nseed: turn {turns}"),
        );
        local.run();
        let after = replay_of(&local, &game);
        assert!(
            after.events().len() > replay.events().len(),
            "turn {turns} was not taken: {:?}",
            local.sent().last().map(|(_, r)| r.body.clone())
        );
        // While one setup is sealed, the record shows only its marker.
        if record.contains("Defender:sealed") && !record.contains("Attacker:sealed") {
            sealed_seen = true;
            assert!(!record.contains("Defender:C") && !record.contains("Defender:K"));
        }
    }
    assert!(sealed_seen);
    let record = local.record(&game);
    assert!(record.contains("[Result \"1-0\"]") || record.contains("[Result \"0-1\"]"));
    let file = local.root.join("siege.yam");
    std::fs::write(&file, &record).unwrap();
    let out = std::process::Command::new(yam_tests::yam_bin())
        .args(["verify", file.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

fn replay_of(local: &Local, game: &str) -> yam_referee::signed::SignedReplay {
    replay(&local.record(game))
}

#[test]
fn done_markers_are_pruned_after_the_configured_days() {
    let mut local = Local::new();
    local.register("ann@player.test");
    let journal = local.root.join("data/robot/journal");
    let done = || {
        std::fs::read_dir(&journal)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".done"))
            .count()
    };
    assert_eq!(done(), 1, "the registration mail is remembered");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let out = robot_once(
        &local.config,
        &[("YAM_ROBOT_NOW", &(now + 29 * 86_400).to_string())],
    );
    assert!(out.status.success());
    assert_eq!(done(), 1, "kept within the default 30 days");
    let out = robot_once(
        &local.config,
        &[("YAM_ROBOT_NOW", &(now + 31 * 86_400).to_string())],
    );
    assert!(out.status.success());
    assert!(stderr(&out).contains("1 done marker(s) older than 30 days pruned"));
    assert_eq!(done(), 0);
}
