//! The robot on a local Maildir, answering into a directory: crash safety
//! (SIGKILL at every step of a mail) and hostile mails. No mail server is
//! needed, so these run everywhere, fast.

mod robot_common;

use std::path::PathBuf;

use robot_common::{KILL_STEPS, Received, parse, replay, robot_once, token_in};

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

    /// Mails not yet dealt with: in `new/`, or in `cur/` without the Seen
    /// flag. (Dealt with, a mail stays in the mailbox, marked seen.)
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

    /// Every mail the mailbox holds, dealt with or not.
    fn kept(&self) -> usize {
        ["in/new", "in/cur"]
            .iter()
            .map(|d| std::fs::read_dir(self.root.join(d)).unwrap().count())
            .sum()
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
    for (n, step) in KILL_STEPS.iter().enumerate() {
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
    let delivered = local.seq as usize;
    assert_eq!(
        local.kept(),
        delivered,
        "every mail, the hostile ones included, stays in the mailbox"
    );
    let new: Vec<(String, Received)> = local.sent().into_iter().collect();
    // Answers: one refusal to ann (the first of the day; the second mail
    // in her name is only logged, so a flood in her name never becomes a
    // flood to her), eve's refusal, ann's board; nothing to the garbage,
    // the big mail, the auto-reply or the robot itself.
    assert_eq!(new.len(), sent_before + 3, "{:#?}", &new[sent_before..]);
    let refused: Vec<&Received> = new
        .iter()
        .map(|(_, r)| r)
        .filter(|r| r.body.starts_with("Refused"))
        .collect();
    assert_eq!(refused.len(), 1);
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

impl Local {
    /// `who`, with its token, mails `what`, and the robot reads it.
    fn says(&mut self, who: &str, token: &str, what: &str) {
        self.deliver(who, what, &format!("token: {token}"));
        self.run();
    }
}

/// Ann challenges Bo to a Khan game and Bo joins: the game's id, and
/// Ann's and Bo's tokens.
fn ann_and_bo_at_khan(local: &mut Local) -> (String, String, String) {
    let ann = local.register("ann@player.test");
    let bo = local.register("bo@player.test");
    local.deliver(
        "ann@player.test",
        "challenge khan basic bo@player.test",
        &format!("token: {ann}"),
    );
    local.run();
    let game = game_of(local);
    local.deliver(
        "bo@player.test",
        &format!("join {game}"),
        &format!("token: {bo}"),
    );
    local.run();
    (game, ann, bo)
}

/// When the robot last saw activity in `game` (its `robot.yaml`).
fn last_activity(local: &Local, game: &str) -> u64 {
    let meta = std::fs::read_to_string(local.root.join("data/games").join(game).join("robot.yaml"))
        .unwrap();
    meta.lines()
        .find_map(|l| l.strip_prefix("last_activity: "))
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

/// The reminders the robot sent to `who` (a part of the address).
fn reminders_to(local: &Local, who: &str) -> usize {
    local
        .sent()
        .into_iter()
        .filter(|(to, r)| to.contains(who) && r.body.starts_with("Reminder"))
        .count()
}

/// The operator tries other reminders and goes back: a look cut by a crash
/// while it made the games' hints anew under the new settings left those
/// hints under the name of the old settings (`live/.settings`), and, the
/// old settings back, they were trusted: Ann's reminder of day 14 waited
/// for the day the other settings had worked out (day 30).
#[test]
fn a_look_cut_while_the_settings_change_leaves_no_hint_trusted_under_the_old() {
    let mut local = Local::new();
    let (game, _, _) = ann_and_bo_at_khan(&mut local);
    let last = last_activity(&local, &game);
    let at = |days: u64| (last + days * 86_400 + 60).to_string();
    let reminded = |local: &Local| reminders_to(local, "ann");
    let config = std::fs::read_to_string(&local.config).unwrap();
    let look = |local: &Local, day: u64, kill: Option<&str>| {
        let now = at(day);
        let mut env = vec![("YAM_ROBOT_NOW", now.as_str())];
        if let Some(step) = kill {
            env.push(("YAM_ROBOT_KILL_AT", step));
        }
        robot_once(&local.config, &env)
    };
    // Hints under the default settings (a reminder on day 14).
    assert!(look(&local, 1, None).status.success());
    // Other reminders, and the look that works the hints out anew is cut
    // once it has made one.
    std::fs::write(
        &local.config,
        config.replace(
            "limits:\n",
            "deadlines:\n  reminders: [30]\n  forfeit: 40\nlimits:\n",
        ),
    )
    .unwrap();
    let cut = look(&local, 2, Some("after-a-hint"));
    assert!(!cut.status.success(), "setup: the look was cut");
    let hints: Vec<String> = std::fs::read_dir(local.root.join("data/live"))
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str().map(str::to_owned))
        .filter(|n| n.starts_with(&game))
        .collect();
    assert_eq!(
        hints.len(),
        1,
        "setup: one hint, of the new settings: {hints:?}"
    );
    // The default settings back: Ann is reminded on day 14, as before.
    std::fs::write(&local.config, &config).unwrap();
    assert!(look(&local, 14, None).status.success());
    assert_eq!(
        reminded(&local),
        1,
        "a hint worked out under other settings was trusted under the old ones: {hints:?}"
    );
}

#[test]
fn silence_brings_reminders_then_a_forfeit_claim() {
    let mut local = Local::new();
    let (game, _, _) = ann_and_bo_at_khan(&mut local);
    let last = last_activity(&local, &game);
    let at = |days: u64| (last + days * 86_400 + 60).to_string();
    let reminders = |local: &Local| reminders_to(local, "ann");
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

#[test]
fn while_an_offer_waits_the_one_it_is_made_to_is_reminded_and_claimed_against() {
    // Ann, to move, offers a draw and waits for Bo's answer: Bo owes the
    // next event (`SignedReplay::owing`), so Bo is reminded and, after the
    // agreed days, claimed against; a claim against Ann, who waits, would
    // be refused by the replay every day.
    let mut local = Local::new();
    let (game, ann, _) = ann_and_bo_at_khan(&mut local);
    local.deliver("ann@player.test", "offer draw", &format!("token: {ann}"));
    local.run();
    let last = last_activity(&local, &game);
    let at = |days: u64| (last + days * 86_400 + 60).to_string();
    robot_once(&local.config, &[("YAM_ROBOT_NOW", &at(14))]);
    let reminded = |who: &str| {
        local
            .sent()
            .into_iter()
            .filter(|(to, r)| to.contains(who) && r.body.starts_with("Reminder"))
            .count()
    };
    assert_eq!((reminded("bo"), reminded("ann")), (1, 0));
    let out = robot_once(&local.config, &[("YAM_ROBOT_NOW", &at(40))]);
    assert!(
        stderr(&out).contains("forfeit claimed against bo@player.test"),
        "{}",
        stderr(&out)
    );
    assert_eq!(replay(&local.record(&game)).claims().len(), 1);
}

#[test]
fn every_takeback_offer_the_replay_holds_open_can_be_answered_by_mail() {
    // Ann moves and offers a take-back twice; Bo declines one. The other
    // is still open (the replay says Bo owes its answer, so Ann could
    // claim against him), so Bo's acceptance must find it, as the replay
    // does, not lose it by reading the record its own way.
    let mut local = Local::new();
    let (game, ann, bo) = ann_and_bo_at_khan(&mut local);
    local.says("ann@player.test", &ann, "move Ng3-f3 #0");
    local.says("ann@player.test", &ann, "offer takeback");
    local.says("ann@player.test", &ann, "offer takeback");
    local.says("bo@player.test", &bo, "decline takeback");
    let r = replay(&local.record(&game));
    assert_eq!(r.plies(), 1);
    let bo_to_move = r.to_move_key().unwrap();
    assert_eq!(
        r.owing(),
        vec![bo_to_move],
        "the first offer still waits on Bo"
    );
    local.says("bo@player.test", &bo, "accept takeback");
    assert_eq!(
        replay(&local.record(&game)).plies(),
        0,
        "{}",
        last_to(&local, "bo", "take").body
    );
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
    local.run();
    // The offer names the player by address, never by key fingerprint.
    let told = last_to(&local, "bo", "A draw is offered by");
    let line = told
        .body
        .lines()
        .find(|l| l.starts_with("A draw is offered by"))
        .unwrap();
    assert!(line.ends_with("(ann@player.test)."), "{line}");
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
fn a_move_mailed_in_short_or_from_to_form_is_recorded_in_long_form() {
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
    last_to(&local, "bo", "The game begins");
    // The short form, in the subject as `move GAME MOVE #PLY`.
    local.deliver(
        "ann@player.test",
        &format!("move {game} Nf3 #0"),
        &format!("token: {ann}"),
    );
    local.run();
    assert_eq!(replay(&local.record(&game)).plies(), 1);
    // The engine's from-to form, in the body.
    local.deliver(
        "bo@player.test",
        "moving",
        &format!("token: {bo}\nmove {game} e7f6 #1"),
    );
    local.run();
    assert_eq!(replay(&local.record(&game)).plies(), 2);
    let record = local.record(&game);
    let parsed = yam_notation::parse_record::<yam_notation::RawGrammar>(&record).unwrap();
    let line: Vec<&str> = parsed.main_line().map(|(t, _)| t.as_str()).collect();
    assert_eq!(line, ["Ng3-f3", "Ae7-f6"]);
    // An ambiguous short form is refused with its candidates, an
    // impossible one with the nearest legal moves; nothing is played.
    local.deliver(
        "ann@player.test",
        &format!("move {game} Ag5 #2"),
        &format!("token: {ann}"),
    );
    local.run();
    last_to(&local, "ann", "`Ag5` could be any of Ag4-g5, Ah4-g5");
    local.deliver(
        "ann@player.test",
        &format!("move {game} Nd5 #2"),
        &format!("token: {ann}"),
    );
    local.run();
    last_to(
        &local,
        "ann",
        "no legal move is `Nd5`; the nearest legal moves:",
    );
    assert_eq!(replay(&local.record(&game)).plies(), 2);
}

/// The robot keeps the tip of each game it writes (its verified replay,
/// bound to the record's bytes: `docs/fair-play.md`, 9.11), so the first
/// command of a game in a run restores it rather than replaying the record
/// (a solo game's move cost 7.2 ms at 11 events and 14.2 ms at 283 from a
/// run's start), and prints only the new events after the record's verified
/// part. A game played so, a run a move, is the game played whole:
/// canonical (printed again, every byte the same) and verified; a damaged
/// tip, another game's tip or another text's is no tip, and the game goes
/// on with a tip written anew.
#[test]
fn a_robot_game_played_through_its_tip_is_the_game_played_whole() {
    let canonical = |text: &str| {
        yam_notation::record_to_string::<yam_notation::RawGrammar>(
            &yam_notation::parse_record::<yam_notation::RawGrammar>(text).unwrap(),
        )
    };
    let mut local = Local::new();
    let (game, ann, bo) = ann_and_bo_at_khan(&mut local);
    let tip = local.root.join("data/games").join(&game).join("tip");
    let play = |local: &mut Local, ply: usize| {
        let (who, token) = if ply.is_multiple_of(2) {
            ("ann@player.test", &ann)
        } else {
            ("bo@player.test", &bo)
        };
        // The move the robot's answers suggest for this ply.
        let suggested = format!("Reply: move {game} ");
        let mv = local
            .sent()
            .into_iter()
            .find_map(|(_, r)| {
                r.body.lines().find_map(|l| {
                    l.strip_prefix(&suggested)?
                        .strip_suffix(&format!(" #{ply}"))
                        .map(str::to_owned)
                })
            })
            .expect("a suggested move");
        local.deliver(
            who,
            &format!("move {game} {mv} #{ply}"),
            &format!("token: {token}"),
        );
        let run = local.run();
        assert_eq!(
            replay(&local.record(&game)).plies() as usize,
            ply + 1,
            "{mv}: {}",
            stderr(&run)
        );
    };
    for ply in 0..3 {
        play(&mut local, ply);
        let record = local.record(&game);
        assert!(
            yam_tests::tip_is_of(&tip, &record),
            "a tip of the record after move {ply}"
        );
        assert_eq!(canonical(&record), record, "printed canonically");
    }
    // A tip damaged on disk: no tip, the move is played, a tip again.
    let mut damaged = std::fs::read(&tip).unwrap();
    let middle = damaged.len() / 2;
    damaged[middle] ^= 1;
    std::fs::write(&tip, &damaged).unwrap();
    play(&mut local, 3);
    assert!(yam_tests::tip_is_of(&tip, &local.record(&game)));
    // Another game's tip in its place vouches for nothing.
    let other = {
        let mut two = Local::new();
        let (g, a, _) = ann_and_bo_at_khan(&mut two);
        two.deliver(
            "ann@player.test",
            &format!("move {g} Ng3-f3 #0"),
            &format!("token: {a}"),
        );
        two.run();
        std::fs::read(two.root.join("data/games").join(&g).join("tip")).unwrap()
    };
    std::fs::write(&tip, &other).unwrap();
    play(&mut local, 4);
    // A tip of the record before this move (the record changed behind it).
    let before = std::fs::read(&tip).unwrap();
    play(&mut local, 5);
    let record = local.record(&game);
    std::fs::write(&tip, &before).unwrap();
    assert!(!yam_tests::tip_is_of(&tip, &record));
    local.deliver(
        "ann@player.test",
        &format!("show {game}"),
        &format!("token: {ann}"),
    );
    local.run();
    last_to(&local, "ann", &game);
    assert!(
        yam_tests::tip_is_of(&tip, &record),
        "a reading writes the tip anew"
    );
    assert_eq!(canonical(&record), record, "every move printed canonically");
    let verify = std::process::Command::new(yam_tests::yam_bin!())
        .arg("verify")
        .arg(local.root.join("data/games").join(&game).join("record.yam"))
        .output()
        .unwrap();
    assert!(verify.status.success(), "{}", stderr(&verify));
}

/// The record the robot attaches to an answer travels as a desk's does
/// (`docs/mail.md`, "Why the attached record travels as its lines"): as its
/// own lines when nothing on a mail's way would change them, legible in
/// the raw mail and read back byte for byte. Until the forty-second step
/// the robot sent every record in base64, which docs/robot.md said it did
/// not (a quarter larger, and its encoding a fifth of a long game's
/// answer's instructions).
#[test]
fn the_robots_attached_record_travels_as_its_lines() {
    let mut local = Local::new();
    let (game, ann, _) = ann_and_bo_at_khan(&mut local);
    local.deliver(
        "ann@player.test",
        &format!("move {game} Ng3-f3 #0"),
        &format!("token: {ann}"),
    );
    local.run();
    let record = local.record(&game);
    let raw: Vec<String> = std::fs::read_dir(local.root.join("out"))
        .unwrap()
        .flatten()
        .map(|e| String::from_utf8_lossy(&std::fs::read(e.path()).unwrap()).into_owned())
        .filter(|text| text.contains("application/x-yam"))
        .collect();
    assert!(!raw.is_empty(), "setup: an answer with the record");
    for mail in &raw {
        let part = &mail[mail.find("application/x-yam").unwrap()..];
        assert!(
            part.contains("Content-Transfer-Encoding: 7bit"),
            "the record is not sent as its lines: {}",
            &part[..part.len().min(400)]
        );
        assert!(part.contains("[GameId \""), "legible in the raw mail");
    }
    let answered = local
        .sent()
        .into_iter()
        .filter_map(|(_, r)| r.record)
        .find(|r| r.contains("Ng3-f3"))
        .unwrap();
    assert_eq!(answered, record, "read back as the store keeps it");
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
    use yam_cli::game::autoplay::{Intent, choose};
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
    let out = std::process::Command::new(yam_tests::yam_bin!())
        .args(["verify", file.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// Adversary: the Attacker of a Castle Siege the robot referees, who wants
/// the Defender's face-down setup before it is revealed. Attack: none but
/// reading the robot's mails. While the setups are sealed, every answer and
/// notice ends with "a legal placement drawn at random" to copy, for the
/// side that is to seal; but it is drawn from the count of the record's
/// events, which anyone can count, and the status that carries it goes to
/// both players. A Defender who copies the robot's suggestion, as the
/// answer invites, seals a setup her opponent was mailed before either
/// setup was revealed (CS-07: both sides place in secret; robot.md: "your
/// opponent sees only `Defender:sealed`"). The robot must show a player no
/// placement it suggests to the other, and draw it so that nobody can
/// compute it.
#[test]
fn the_setup_the_robot_suggests_is_neither_mailed_to_the_opponent_nor_computable() {
    use yam_referee::castle_siege::{Side, choose_setup};
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
    let record = local.record(&game);
    let ann_defends = record
        .lines()
        .find(|l| l.starts_with("[Defender "))
        .unwrap()
        .contains("ann");
    let ((defender, dtoken), (attacker, atoken)) = if ann_defends {
        (("ann@player.test", ann), ("bo@player.test", bo))
    } else {
        (("bo@player.test", bo), ("ann@player.test", ann))
    };
    // Both look at the board before sealing anything.
    local.deliver(
        defender,
        &format!("show {game}"),
        &format!("token: {dtoken}"),
    );
    local.run();
    local.deliver(
        attacker,
        &format!("show {game}"),
        &format!("token: {atoken}"),
    );
    local.run();
    // The Defender seals the placement the robot suggested to her.
    let answer = last_to(&local, defender, "a legal placement drawn at random");
    let prefix = format!("move {game} Defender:");
    let placement = answer
        .body
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with(&prefix))
        .and_then(|l| l.split_whitespace().nth(2))
        .unwrap_or_else(|| panic!("setup: no placement suggested:\n{}", answer.body))
        .to_owned();
    local.deliver(
        defender,
        &format!("move {game} {placement}"),
        &format!("token: {dtoken}"),
    );
    local.run();
    let record = local.record(&game);
    assert!(
        record.contains("Defender:sealed") && !record.contains("Attacker:sealed"),
        "setup: {record}"
    );
    assert!(!record.contains(&placement), "setup: {record}");
    // Before the Attacker has sealed anything, no mail to him names the
    // Defender's sealed setup...
    if let Some((_, mail)) = local
        .sent()
        .into_iter()
        .find(|(to, r)| to.contains(attacker) && r.body.contains(&placement))
    {
        panic!(
            "the Attacker was mailed the Defender's sealed setup {placement} before sealing his own:\n{}",
            mail.body
        );
    }
    // ...and nobody can compute it from what the record shows.
    let events = replay(&record).events().len() as u64;
    assert!(
        !(0..=events).any(|n| choose_setup(Side::Defender, n)
            .unwrap()
            .placement()
            .to_string()
            == placement),
        "the robot's suggestion {placement} is choose_setup(Defender, events in the record): anyone can compute it"
    );
}

/// Adversary: none; real life. Under `standard` (CS-P1) the robot's answer
/// ends with a whole turn to copy, `move ID Move STEPS... Breach ...
/// Attack ... End #PLY`, longer than 72 characters with the game's id.
/// Ann copies it into Thunderbird, which sends plain text as
/// `format=flowed` (RFC 3676) and wraps its long lines at 72 columns with
/// a soft break: a line ending in a space, which a reader joins to the
/// next. The robot reads the lines as they stand: the first part of the
/// turn is played as a declaration of its own, and the rest (a line whose
/// first word is no command) is passed over without a word, `#PLY` and
/// `End` with it. What she sent as one turn must be played whole, or
/// refused whole; never cut where her mail program wrapped it.
#[test]
fn a_whole_turn_wrapped_by_a_flowed_mail_is_not_played_in_part() {
    use yam_cli::game::autoplay::{Intent, choose};
    use yam_referee::castle_siege::Policy;
    let mut local = Local::new();
    let ann = local.register("ann@player.test");
    let bo = local.register("bo@player.test");
    local.says(
        "ann@player.test",
        &ann,
        "challenge castle-siege standard bo@player.test",
    );
    let game = game_of(&local);
    local.says("bo@player.test", &bo, &format!("join {game}"));
    let tokens = [
        ("ann@player.test".to_owned(), ann),
        ("bo@player.test".to_owned(), bo),
    ];
    // Both seal a setup (the robot reveals them); then the Defender is to
    // move.
    let (address, token) = loop {
        let record = local.record(&game);
        let before = replay(&record);
        let seat = before.seat_of(&before.to_move_key().unwrap()).unwrap();
        let tag = ["Defender", "Attacker"][seat];
        let line = record
            .lines()
            .find(|l| l.starts_with(&format!("[{tag} ")))
            .unwrap();
        let (address, token) = tokens
            .iter()
            .find(|(a, _)| line.contains(a.split('@').next().unwrap()))
            .unwrap()
            .clone();
        match choose(&before, seat, Policy::Eager, 1).unwrap() {
            Intent::Seal(setup) => local.says(&address, &token, &format!("move {game} {setup}")),
            _ => break (address, token),
        }
    };
    local.says(&address, &token, &format!("show {game}"));
    let shown = last_to(&local, &address, "> show");
    let prefix = format!("move {game} ");
    let suggested = shown
        .body
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with(&prefix) && l.contains(" End #"))
        .unwrap_or_else(|| panic!("no whole turn to copy:\n{}", shown.body))
        .to_owned();
    assert!(suggested.len() > 72, "{suggested}");
    // Thunderbird's format=flowed: wrapped at spaces, each soft-broken line
    // ending in a space.
    let mut flowed = String::new();
    let mut line = String::new();
    for word in suggested.split(' ') {
        if !line.is_empty() && line.len() + word.len() > 72 {
            flowed.push_str(&line);
            flowed.push_str("\r\n");
            line.clear();
        }
        line.push_str(word);
        line.push(' ');
    }
    flowed.push_str(line.trim_end());
    assert!(flowed.contains(" \r\n"), "{flowed}");
    let raw = format!(
        "From: {address}\r\nTo: robot@yam.test\r\nMessage-ID: <flowed@player.test>\r\n\
         Subject: Re: [Yam] my turn\r\nMIME-Version: 1.0\r\n\
         Content-Type: text/plain; charset=utf-8; format=flowed\r\n\
         Content-Transfer-Encoding: 7bit\r\n\r\n{flowed}\r\n\r\ntoken: {token}\r\n"
    );
    let before = replay_of(&local, &game);
    let mover = before.to_move_key();
    local.deliver_raw(raw.as_bytes());
    local.run();
    let after = replay_of(&local, &game);
    let whole = after.to_move_key() != mover;
    let none = after.events().len() == before.events().len();
    assert!(
        whole || none,
        "the turn {suggested:?}, sent format=flowed as\n{flowed}\nwas played in part ({} new event(s)), and {address} is still to move; the robot answered:\n{}",
        after.events().len() - before.events().len(),
        last_to(
            &local,
            &address,
            &format!("> {}", flowed.lines().next().unwrap().trim_end())
        )
        .body
    );
}

/// CS-P4: a Castle Siege challenge that names no ruleset is played as the
/// rules say: one order per mail, each answered at once with its die, the
/// allowance first. The record names `standard-faithful`, refuses a step
/// listed with the allowance, and verifies.
#[test]
fn a_castle_siege_by_the_robot_is_faithful_by_default_one_order_per_mail() {
    use yam_cli::game::autoplay::{Intent, choose};
    use yam_referee::castle_siege::Policy;
    let mut local = Local::new();
    let ann = local.register("ann@player.test");
    let bo = local.register("bo@player.test");
    local.deliver(
        "ann@player.test",
        "challenge castle-siege bo@player.test",
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
    assert!(
        local
            .record(&game)
            .contains("[Ruleset \"standard-faithful\"]"),
        "{}",
        local.record(&game)
    );
    let tokens = [("ann@player.test", ann), ("bo@player.test", bo)];
    let mut mails = 0u64;
    let mut refused_seen = false;
    let mut allowances = 0;
    // Some 60 orders, then the player to move resigns: enough for several
    // faithful turns without playing a whole siege mail by mail.
    while mails < 60 {
        let record = local.record(&game);
        let replay = replay(&record);
        if replay.ending().is_some() {
            break;
        }
        mails += 1;
        let seat = replay.seat_of(&replay.to_move_key().unwrap()).unwrap();
        let tag = ["Defender", "Attacker"][seat];
        let line = record
            .lines()
            .find(|l| l.starts_with(&format!("[{tag} ")))
            .unwrap();
        let (address, token) = tokens
            .iter()
            .find(|(a, _)| line.contains(a.split('@').next().unwrap()))
            .unwrap();
        let words = match choose(&replay, seat, Policy::Eager, mails).unwrap() {
            Intent::Seal(setup) => vec![setup],
            Intent::Orders(orders) => orders,
            Intent::Reveal(_) => panic!("the robot reveals by itself"),
        };
        if words == ["Move"] && !refused_seen {
            // No step is listed before the allowance is known (CS-P4).
            local.deliver(
                address,
                &format!("move {game} Move Kd6-c6"),
                &format!("token: {token}"),
            );
            local.run();
            last_to(&local, address, "Move is declared alone");
            assert_eq!(
                replay_of(&local, &game).events().len(),
                replay.events().len()
            );
            refused_seen = true;
        }
        // Every mail of play is one declaration: at most one die.
        // (Steps, breaches and attacks name squares; markers do not.)
        let orders = words
            .iter()
            .filter(|w| !w.contains(':') && w.chars().any(|c| c.is_ascii_digit()))
            .count();
        assert!(orders <= 1, "{words:?}");
        allowances += usize::from(words == ["Move"]);
        local.deliver(
            address,
            &format!("move {game} {}", words.join(" ")),
            &format!("token: {token}\nseed: mail {mails}"),
        );
        local.run();
        assert!(
            replay_of(&local, &game).events().len() > replay.events().len(),
            "mail {mails} was not taken: {:?}",
            local.sent().last().map(|(_, r)| r.body.clone())
        );
    }
    assert!(refused_seen && allowances >= 2, "{allowances} allowances");
    // The robot's suggested reply is one order, taken as it is sent back.
    for _ in 0..6 {
        let record = local.record(&game);
        let before = replay(&record);
        if before.ending().is_some() {
            break;
        }
        let seat = before.seat_of(&before.to_move_key().unwrap()).unwrap();
        let tag = ["Defender", "Attacker"][seat];
        let line = record
            .lines()
            .find(|l| l.starts_with(&format!("[{tag} ")))
            .unwrap();
        let (address, token) = tokens
            .iter()
            .find(|(a, _)| line.contains(a.split('@').next().unwrap()))
            .unwrap();
        for e in std::fs::read_dir(local.root.join("out")).unwrap().flatten() {
            std::fs::remove_file(e.path()).unwrap();
        }
        local.deliver(address, &format!("show {game}"), &format!("token: {token}"));
        local.run();
        let shown = last_to(&local, address, "> show");
        assert!(shown.body.contains("one order per mail"), "{}", shown.body);
        let reply = shown
            .body
            .lines()
            .rfind(|l| l.trim_start().starts_with(&format!("move {game} ")))
            .unwrap_or_else(|| panic!("no reply to copy: {}", shown.body))
            .trim()
            .to_owned();
        local.deliver(address, &reply, &format!("token: {token}"));
        local.run();
        assert!(
            replay_of(&local, &game).events().len() > before.events().len(),
            "{reply} was not taken: {:?}",
            local.sent().last().map(|(_, r)| r.body.clone())
        );
    }
    let record = local.record(&game);
    assert!(
        record.contains("Move@"),
        "the allowance is rolled on its own"
    );
    let file = local.root.join("siege.yam");
    std::fs::write(&file, &record).unwrap();
    for command in ["verify", "check"] {
        let out = std::process::Command::new(yam_tests::yam_bin!())
            .args([command, file.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{command}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
}

fn replay_of(local: &Local, game: &str) -> yam_referee::signed::SignedReplay {
    replay(&local.record(game))
}

/// A player with the program: a desk of their own, mailing into an outbox
/// directory that `Referee::route` delivers from.
struct Desk {
    address: String,
    data: PathBuf,
    outbox: PathBuf,
    inbox: PathBuf,
}

impl Desk {
    fn new(root: &std::path::Path, name: &str, address: &str) -> Desk {
        let data = root.join(format!("{name}-desk"));
        let outbox = root.join(format!("{name}-out"));
        let inbox = root.join(format!("{name}-in"));
        for d in [&data, &outbox, &inbox] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(
            data.join("config.yaml"),
            format!(
                "identity:\n  name: {name}\n  address: {address}\n  key: {name}\noutgoing:\n  directory:\n    path: {}\n",
                outbox.display()
            ),
        )
        .unwrap();
        Desk {
            address: address.into(),
            data,
            outbox,
            inbox,
        }
    }

    fn yam(&self, args: &[&str]) -> std::process::Output {
        let out = yam_tests::yam!()
            .args(args)
            .arg("--data-dir")
            .arg(&self.data)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "yam {args:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    /// A card naming `address`, signed by this desk's key: what anyone can
    /// sign with a key of her own, whatever address it names.
    fn card_naming(&self, address: &str) -> String {
        let dir = self.data.join("secrets/identities");
        let seed = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.extension().is_some_and(|e| e == "seed"))
            .expect("the desk's seed");
        let bytes: [u8; 32] = hex::decode(std::fs::read_to_string(seed).unwrap().trim())
            .unwrap()
            .try_into()
            .unwrap();
        let key = yam_referee::fair_play::sign::SigningKey::from_seed(&bytes);
        yam_cli::mail::cards::Card {
            name: "someone".into(),
            address: address.into(),
            key: key.public_key(),
            issued: 1_700_000_000,
        }
        .signed_text(&key)
    }

    /// Reads every mail waiting, oldest first; what `yam read` said.
    fn read(&self) -> String {
        let mut said = String::new();
        let mut files: Vec<PathBuf> = std::fs::read_dir(&self.inbox)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        files.sort();
        for file in files {
            said.push_str(&String::from_utf8_lossy(
                &self.yam(&["read", "--eml", file.to_str().unwrap()]).stdout,
            ));
            std::fs::remove_file(&file).unwrap();
        }
        said
    }

    fn status(&self, game: &str) -> String {
        let text = String::from_utf8_lossy(&self.yam(&["games"]).stdout).into_owned();
        text.lines()
            .find(|l| l.split_whitespace().nth(1) == Some(game))
            .and_then(|l| l.split_whitespace().next())
            .unwrap_or("none")
            .to_owned()
    }

    fn record(&self, game: &str) -> String {
        std::fs::read_to_string(self.data.join("games").join(game).join("record.yam")).unwrap()
    }
}

/// Two desks and the robot, with a postman between them.
struct Referee {
    local: Local,
    ann: Desk,
    bo: Desk,
    seq: u32,
    /// Every mail the robot was handed, raw.
    to_robot: Vec<Vec<u8>>,
    /// The desks' mails reach the robot as an earlier Yam wrote them,
    /// without `X-Yam-Card` (or through a gateway that drops it).
    without_cards: bool,
}

/// A raw mail without its `X-Yam-Card` header (its folded lines too).
fn without_card(raw: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(raw);
    let end = text.find("\r\n\r\n").unwrap();
    let mut out = String::new();
    let mut skipping = false;
    for line in text[..end].split("\r\n") {
        if line.starts_with("X-Yam-Card:") {
            skipping = true;
            continue;
        }
        if skipping && line.starts_with([' ', '\t']) {
            continue;
        }
        skipping = false;
        out.push_str(line);
        out.push_str("\r\n");
    }
    out.push_str(&text[end + 2..]);
    out.into_bytes()
}

impl Referee {
    fn new() -> Referee {
        let local = Local::new();
        let ann = Desk::new(&local.root, "ann", "ann@player.test");
        let bo = Desk::new(&local.root, "bo", "bo@player.test");
        Referee {
            local,
            ann,
            bo,
            seq: 0,
            to_robot: Vec::new(),
            without_cards: false,
        }
    }

    /// Delivers every mail the desks sent, by its To and Cc; returns how
    /// many went to the robot. (The robot's answers stay in its outbox,
    /// where `Local::sent` reads them.)
    fn route(&mut self) -> usize {
        let mut to_robot = 0;
        let outboxes = [self.ann.outbox.clone(), self.bo.outbox.clone()];
        for dir in outboxes {
            let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
                .unwrap()
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "eml"))
                .collect();
            files.sort_by_key(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok());
            for file in files {
                let raw = std::fs::read(&file).unwrap();
                let parsed = mail_parser::MessageParser::default().parse(&raw).unwrap();
                let mut rcpts: Vec<String> = Vec::new();
                for list in [parsed.to(), parsed.cc()].into_iter().flatten() {
                    for a in list.iter() {
                        rcpts.push(a.address().unwrap_or_default().to_lowercase());
                    }
                }
                for rcpt in rcpts {
                    self.seq += 1;
                    if rcpt == self.ann.address {
                        std::fs::write(self.ann.inbox.join(format!("{:06}.eml", self.seq)), &raw)
                            .unwrap();
                    } else if rcpt == self.bo.address {
                        std::fs::write(self.bo.inbox.join(format!("{:06}.eml", self.seq)), &raw)
                            .unwrap();
                    } else if rcpt == "robot@yam.test" {
                        let raw = if self.without_cards {
                            without_card(&raw)
                        } else {
                            raw.clone()
                        };
                        assert_eq!(
                            String::from_utf8_lossy(&raw).contains("X-Yam-Card:"),
                            !self.without_cards
                                && String::from_utf8_lossy(&raw).contains("X-Yam-Referee:"),
                            "a desk's mail to the referee carries its card"
                        );
                        self.local.deliver_raw(&raw);
                        self.to_robot.push(raw.clone());
                        to_robot += 1;
                    }
                }
                let sent = dir.join("sent");
                std::fs::create_dir_all(&sent).unwrap();
                std::fs::rename(&file, sent.join(file.file_name().unwrap())).unwrap();
            }
        }
        to_robot
    }

    /// Routes, then lets the robot read; the robot's log.
    fn robot(&mut self) -> String {
        self.route();
        stderr(&self.local.run())
    }

    fn robot_record(&self, game: &str) -> String {
        self.local.record(game)
    }
}

/// A forged copy of `record`: one character of its last event's signature
/// changed.
fn forge(record: &str) -> String {
    let end = record.rfind("]").unwrap();
    let at = record[..end]
        .char_indices()
        .rev()
        .filter(|(_, c)| c.is_ascii_alphanumeric())
        .nth(12)
        .unwrap()
        .0;
    let mut forged = record.to_owned();
    let swap = if &record[at..=at] == "A" { "B" } else { "A" };
    forged.replace_range(at..=at, swap);
    assert_ne!(forged, record);
    forged
}

/// A turn mail as a desk composes it, with the record given.
fn turn_mail(from: &str, game: &str, record: &str, message_id: &str, automatic: bool) -> Vec<u8> {
    carded_turn_mail(from, game, record, message_id, automatic, None)
}

/// A turn mail as a desk writes it to a referee, with `card` (its signed
/// text) in `X-Yam-Card`.
fn carded_turn_mail(
    from: &str,
    game: &str,
    record: &str,
    message_id: &str,
    automatic: bool,
    card: Option<String>,
) -> Vec<u8> {
    use yam_cli::mail::compose::{TurnMail, compose};
    let players = vec!["ann".to_owned(), "bo".to_owned()];
    compose(&TurnMail {
        from: from.parse().unwrap(),
        to: vec!["bo@player.test".parse().unwrap()],
        game_name: "Khan",
        game_id: game,
        ply: 9,
        players: &players,
        body: "Your move.",
        turn: record.as_bytes(),
        record: record.as_bytes(),
        message_id: message_id.into(),
        thread: &[],
        automatic: if automatic {
            yam_cli::mail::compose::Automatic::Generated
        } else {
            yam_cli::mail::compose::Automatic::No
        },
        referee: Some("robot@yam.test".parse().unwrap()),
        card,
        reminder: None,
        picture: None,
    })
    .unwrap()
    .formatted()
}

/// Ann challenges Bo to `game` (`--game`, `--ruleset` in `args`), seats
/// drawn, with the robot as referee; Bo accepts; every mail reaches the
/// robot, which takes each.
fn open_refereed(t: &mut Referee, game: &str, args: &[&str]) {
    open_refereed_unconfirmed(t, game, args);
    confirm_keys(t);
}

/// Every confirmation the robot mailed, answered from its address with
/// the code as the mail gave it; then the robot's outbox is emptied.
fn confirm_keys(t: &mut Referee) {
    let mut confirmations = Vec::new();
    for (to, r) in t.local.sent() {
        if let Some(code) = r
            .body
            .lines()
            .find_map(|l| l.trim().strip_prefix("confirm "))
        {
            let address = to
                .split_whitespace()
                .find(|w| w.contains('@'))
                .unwrap()
                .trim_matches(['<', '>', ','])
                .to_owned();
            confirmations.push((address, code.to_owned()));
        }
    }
    assert!(!confirmations.is_empty(), "a confirmation was mailed");
    for (address, code) in &confirmations {
        t.local.deliver(
            address,
            "Re: [Yam] Is this key yours? A confirmation from the Yam robot",
            &format!("confirm {code}\n\n> The Yam robot robot@yam.test witnesses ...\n"),
        );
    }
    let log = stderr(&t.local.run());
    assert_eq!(
        log.matches("confirmed key").count(),
        confirmations.len(),
        "{log}"
    );
    for e in std::fs::read_dir(t.local.root.join("out"))
        .unwrap()
        .flatten()
    {
        std::fs::remove_file(e.path()).unwrap();
    }
}

fn open_refereed_unconfirmed(t: &mut Referee, game: &str, args: &[&str]) {
    let invited = t.bo.address.clone();
    let mut challenge = vec![
        "challenge",
        &invited,
        "--seats",
        "drawn",
        "--id",
        game,
        "--referee",
        "robot@yam.test",
    ];
    challenge.extend_from_slice(args);
    t.ann.yam(&challenge);
    // Cards first (not copied to the robot: no game yet), then the
    // challenge, copied.
    assert_eq!(t.route(), 0);
    assert!(t.bo.read().contains("my card is sent in answer"));
    assert_eq!(t.route(), 0);
    assert!(t.ann.read().contains("the waiting challenge"));
    let log = t.robot();
    assert!(
        log.contains(&format!("witnessed {game}: 1 new event")),
        "{log}"
    );
    let said = t.bo.read();
    assert!(said.contains("refereed by robot@yam.test"), "{said}");
    // Bo's desk keeps the referee: its own mails of the game go to it too.
    let board = String::from_utf8_lossy(&t.bo.yam(&["board", game]).stdout).into_owned();
    assert!(board.contains("refereed by robot@yam.test"), "{board}");
    t.bo.yam(&["accept", game]);
    let log = t.robot();
    assert!(log.contains(&format!("witnessed {game}")), "{log}");
    // Ann's desk reveals the seat draw by itself, with Auto-Submitted: the
    // robot takes it all the same, since a member signed it.
    t.ann.read();
    let log = t.robot();
    assert!(log.contains(&format!("witnessed {game}")), "{log}");
    assert!(
        t.to_robot.last().is_some_and(
            |raw| String::from_utf8_lossy(raw).contains("Auto-Submitted: auto-generated")
        ),
        "the seat reveal is an automatic mail"
    );
    t.bo.read();
}

/// Plays `turns` turns chosen by `--auto random` (or to the end), every
/// mail copied to the robot, which must take each.
fn play_refereed(t: &mut Referee, game: &str, turns: usize) {
    let mut played = 0;
    for _ in 0..(turns * 8 + 8) {
        if played == turns {
            break;
        }
        let (a, b) = (t.ann.status(game), t.bo.status(game));
        let mover = match (a.as_str(), b.as_str()) {
            ("over", "over") => break,
            ("YOU", _) => &t.ann,
            (_, "YOU") => &t.bo,
            // A step is still travelling (a roll response, a reveal).
            _ => {
                let log = t.robot();
                assert!(!log.contains("refused"), "{log}");
                t.ann.read();
                t.bo.read();
                continue;
            }
        };
        mover.yam(&[
            "move",
            game,
            "--auto",
            "random",
            "--seed",
            &played.to_string(),
        ]);
        played += 1;
        let log = t.robot();
        assert!(log.contains(&format!("witnessed {game}")), "{log}");
        assert!(!log.contains("refused"), "{log}");
        t.ann.read();
        t.bo.read();
    }
    assert!(played > 0);
    // Until no mail travels: the last automatic steps reach everyone.
    for _ in 0..8 {
        let log = t.robot();
        assert!(!log.contains("refused"), "{log}");
        let waiting = |dir: &PathBuf| {
            std::fs::read_dir(dir)
                .unwrap()
                .flatten()
                .any(|e| e.path().extension().is_some_and(|x| x == "eml"))
        };
        if !waiting(&t.ann.inbox) && !waiting(&t.bo.inbox) {
            break;
        }
        t.ann.read();
        t.bo.read();
    }
}

/// The robot's copy is both players' record byte for byte, and verifies.
fn assert_same_records(t: &Referee, game: &str) {
    assert_eq!(t.robot_record(game), t.ann.record(game), "byte for byte");
    assert_eq!(t.robot_record(game), t.bo.record(game), "byte for byte");
    let file = t
        .local
        .root
        .join("data/games")
        .join(game)
        .join("record.yam");
    let verified = yam_tests::yam!()
        .args(["verify", file.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        verified.status.success(),
        "{}",
        String::from_utf8_lossy(&verified.stdout)
    );
}

#[test]
fn the_robot_referees_a_game_between_two_players_with_their_own_keys() {
    let mut t = Referee::new();
    let game = "khan-ref-1";
    open_refereed(&mut t, game, &["--game-type", "khan", "--ruleset", "basic"]);
    play_refereed(&mut t, game, 8);
    assert_same_records(&t, game);
    // An accepted turn is answered with nothing.
    assert!(t.local.sent().is_empty(), "no answers to accepted turns");

    // The next turn, held back: forged, from a stranger, then the real one.
    let mover = if t.ann.status(game) == "YOU" {
        &t.ann
    } else {
        &t.bo
    };
    let mover_address = mover.address.clone();
    mover.yam(&["move", game, "--auto", "random", "--seed", "99"]);
    let real = mover.record(game);
    let before = t.robot_record(game);

    t.local.deliver_raw(&turn_mail(
        &mover_address,
        game,
        &forge(&real),
        "forged.1@player.test",
        false,
    ));
    let log = stderr(&t.local.run());
    assert!(log.contains("refused"), "{log}");
    assert!(log.contains("does not verify"), "{log}");
    assert_eq!(
        t.robot_record(game),
        before,
        "the forged turn changes nothing"
    );
    let answers = t.local.answers_to(game);
    assert!(
        answers
            .iter()
            .any(|r| r.body.contains("Refused") && r.body.contains("does not verify")),
        "{answers:?}"
    );
    assert!(answers.iter().all(|r| r.record.is_none()));

    t.local.deliver_raw(&turn_mail(
        "eve@player.test",
        game,
        &real,
        "stranger.1@player.test",
        false,
    ));
    // A stranger who has the real turn relays it: every event is signed,
    // so the robot takes it, as the mover's own copy would be taken, and
    // binds her to nothing (her mail carries no card of a key of the game)
    // and mails her nothing.
    let sent_before_relay = t.local.sent().len();
    let log = stderr(&t.local.run());
    assert!(
        log.contains(&format!(
            "witnessed {game}: 1 new event(s) relayed from eve@player.test"
        )),
        "{log}"
    );
    assert_eq!(t.robot_record(game), real);
    assert_eq!(t.local.sent().len(), sent_before_relay, "{log}");
    assert!(
        !witnessed_meta(&t, game).contains("eve@player.test"),
        "{}",
        witnessed_meta(&t, game)
    );

    // Automatic mails without a member's record: never answered.
    let sent = t.local.sent().len();
    t.local.deliver_raw(&turn_mail(
        &mover_address,
        game,
        &forge(&real),
        "forged.2@player.test",
        true,
    ));
    t.local.deliver_raw(
        format!(
            "From: {mover_address}\r\nTo: robot@yam.test\r\nMessage-ID: <vacation.1@player.test>\r\nAuto-Submitted: auto-replied\r\nSubject: Out of office\r\n\r\nI am away.\r\n"
        )
        .as_bytes(),
    );
    let log = stderr(&t.local.run());
    assert_eq!(log.matches("ignored").count(), 2, "{log}");
    assert_eq!(t.local.sent().len(), sent, "no answer to an automatic mail");
    assert_eq!(t.robot_record(game), real);

    // The real turn, copied by the desk, was relayed already.
    let log = t.robot();
    assert!(
        log.contains(&format!("{game}: read before from {mover_address}")),
        "{log}"
    );
    assert_eq!(t.robot_record(game), real);
    t.ann.read();
    t.bo.read();

    // `show` and `list` by plain command cover the witnessed game.
    let token = t.local.register("ann@player.test");
    t.local.deliver(
        "ann@player.test",
        "list",
        &format!("token: {token}\nshow {game}"),
    );
    t.robot();
    let answer = t
        .local
        .answers_to(game)
        .into_iter()
        .find(|r| r.body.contains("> list"))
        .expect("an answer to list");
    assert!(
        answer.body.contains(&format!("{game}  Khan")),
        "{}",
        answer.body
    );
    assert!(answer.body.contains("ply"), "{}", answer.body);
    assert!(
        answer.record.is_none(),
        "no record from the robot's address"
    );
    // The robot's commands do not sign in a witnessed game.
    t.local.deliver(
        "ann@player.test",
        "resign",
        &format!("token: {token}\nresign {game}"),
    );
    t.robot();
    assert_eq!(t.robot_record(game), real);
}

#[test]
fn a_refereed_castle_siege_rolls_with_both_players_chains() {
    let mut t = Referee::new();
    let game = "siege-ref-1";
    open_refereed(
        &mut t,
        game,
        &["--game-type", "castle-siege", "--ruleset", "standard"],
    );
    play_refereed(&mut t, game, 10);
    assert_same_records(&t, game);
    let replay = replay(&t.robot_record(game));
    assert_eq!(replay.parties().len(), 2);
    assert!(
        replay.parties().iter().all(|p| p.anchor.is_some()),
        "both players' chains are committed"
    );
    assert!(
        t.to_robot
            .iter()
            .any(|raw| String::from_utf8_lossy(raw).contains("Auto-Submitted: auto-generated")),
        "automatic steps (reveals, roll responses) reached the robot"
    );
    assert!(t.local.sent().is_empty(), "no answers to accepted turns");
}

#[test]
fn a_silent_player_of_a_refereed_game_is_reminded_and_the_other_told_to_claim() {
    let mut t = Referee::new();
    let game = "khan-ref-2";
    open_refereed(&mut t, game, &["--game-type", "khan", "--ruleset", "basic"]);
    let ann_moves = t.ann.status(game) == "YOU";
    let (silent, waiting) = if ann_moves {
        (&t.ann, &t.bo)
    } else {
        (&t.bo, &t.ann)
    };
    let (silent_address, waiting_address) = (silent.address.clone(), waiting.address.clone());
    let waiting_data = waiting.data.clone();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let at = move |days: u64| (now + days * 86_400).to_string();
    let run_at = |t: &Referee, days: u64| {
        let out = robot_once(&t.local.config, &[("YAM_ROBOT_NOW", &at(days))]);
        assert!(out.status.success(), "{}", stderr(&out));
        stderr(&out)
    };
    let log = run_at(&t, 15);
    assert!(log.contains(&format!("reminded {silent_address}")), "{log}");
    let sent = t.local.sent();
    assert_eq!(sent.len(), 1);
    assert!(sent[0].0.contains(&silent_address), "{:?}", sent[0].0);
    assert!(sent[0].1.body.contains("Reminder"), "{}", sent[0].1.body);
    assert!(sent[0].1.record.is_none());
    let log = run_at(&t, 41);
    assert!(log.contains("a forfeit may be claimed"), "{log}");
    let sent = t.local.sent();
    let note = sent
        .iter()
        .find(|(_, r)| r.body.contains(&format!("yam forfeit {game}")))
        .expect("the waiting player is told");
    assert!(note.0.contains(&waiting_address), "{:?}", note.0);
    assert!(!note.0.contains(&silent_address), "{:?}", note.0);
    // Told once.
    run_at(&t, 42);
    assert_eq!(t.local.sent().len(), sent.len());
    // The claim, signed by the waiting player's desk and copied to the
    // robot, closes the robot's copy.
    let claim = yam_tests::yam!()
        .args(["forfeit", game, "--data-dir"])
        .arg(&waiting_data)
        .env("YAM_NOW", at(41))
        .output()
        .unwrap();
    assert!(
        claim.status.success(),
        "{}",
        String::from_utf8_lossy(&claim.stderr)
    );
    t.route();
    let log = run_at(&t, 43);
    assert!(log.contains("the game is over"), "{log}");
    let waiting = if ann_moves { &t.bo } else { &t.ann };
    assert_eq!(t.robot_record(game), waiting.record(game));
    let meta = std::fs::read_to_string(
        t.local
            .root
            .join("data/games")
            .join(game)
            .join("robot.yaml"),
    )
    .unwrap();
    assert!(meta.contains("stage: over"), "{meta}");
    run_at(&t, 90);
    assert_eq!(t.local.sent().len(), sent.len(), "nothing more");
}

/// The seats of a drawn game are settled by the challenger's desk (it
/// reveals the draw); the other desk only reads them. Every copy names the
/// players from then on, and the same way, before anyone has moved: the
/// names are written once, when the seats are known, by each desk, and
/// never put back to "?".
#[test]
fn every_copy_names_the_players_as_soon_as_the_seats_are_drawn() {
    let mut t = Referee::new();
    let game = "khan-ref-names";
    open_refereed(&mut t, game, &["--game-type", "khan", "--ruleset", "basic"]);
    assert_same_records(&t, game);
    let record = t.bo.record(game);
    let tag = |name: &str| {
        let line = record
            .lines()
            .find(|l| l.starts_with(&format!("[{name} ")))
            .unwrap_or_else(|| panic!("no {name} tag: {record}"));
        line[name.len() + 3..line.len() - 2].to_owned()
    };
    let mut names = [tag("White"), tag("Black")];
    names.sort();
    assert_eq!(names, ["ann", "bo"], "{record}");
}

#[test]
fn a_robot_killed_while_witnessing_takes_the_turn_exactly_once() {
    let mut t = Referee::new();
    let game = "khan-ref-3";
    open_refereed(&mut t, game, &["--game-type", "khan", "--ruleset", "basic"]);
    for (n, step) in ["after-read", "after-apply", "after-archive"]
        .iter()
        .enumerate()
    {
        let mover = if t.ann.status(game) == "YOU" {
            &t.ann
        } else {
            &t.bo
        };
        mover.yam(&["move", game, "--auto", "random", "--seed", &n.to_string()]);
        assert_eq!(t.route(), 1);
        let killed = robot_once(&t.local.config, &[("YAM_ROBOT_KILL_AT", step)]);
        assert!(!killed.status.success(), "{step}: the robot was not killed");
        let log = t.robot();
        assert!(!log.contains("refused"), "{step}: {log}");
        assert_eq!(t.local.waiting(), 0, "{step}: the mail is archived");
        t.ann.read();
        t.bo.read();
        assert_same_records(&t, game);
    }
    assert!(t.local.sent().is_empty(), "no answers to accepted turns");
}

/// `raw` as a gateway that keeps only a mail's text would pass it on: its
/// headers (folded lines with them) but the body, the attachment and the
/// turn block gone.
fn stripped_of_its_turn(raw: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(raw);
    let head = &text[..text.find("\r\n\r\n").unwrap()];
    let kept = [
        "from:",
        "to:",
        "cc:",
        "subject:",
        "message-id:",
        "date:",
        "x-yam-",
    ];
    let mut out = String::new();
    let mut keep = false;
    for line in head.split("\r\n") {
        if !line.starts_with([' ', '\t']) {
            let lower = line.to_ascii_lowercase();
            keep = kept.iter().any(|k| lower.starts_with(k));
        }
        if keep {
            out.push_str(line);
            out.push_str("\r\n");
        }
    }
    out.push_str("Content-Type: text/plain; charset=utf-8\r\n\r\nA move was played.\r\n");
    out.into_bytes()
}

#[test]
fn a_witnessed_turn_mail_without_its_turn_is_logged_not_answered_and_its_resend_is_taken() {
    let mut t = Referee::new();
    let game = "khan-ref-stripped";
    open_refereed(&mut t, game, &["--game-type", "khan", "--ruleset", "basic"]);
    let (mover, other) = if t.ann.status(game) == "YOU" {
        (&t.ann, &t.bo)
    } else {
        (&t.bo, &t.ann)
    };
    let (mover_address, other_address) = (mover.address.clone(), other.address.clone());
    mover.yam(&["move", game, "--auto", "random", "--seed", "1"]);
    // Every copy of the turn mail loses its turn on the way.
    let outbox = mover.outbox.clone();
    let mut stripped = 0;
    for e in std::fs::read_dir(&outbox).unwrap().flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "eml") {
            let raw = std::fs::read(&p).unwrap();
            assert!(String::from_utf8_lossy(&raw).contains("X-Yam-Game"));
            std::fs::write(&p, stripped_of_its_turn(&raw)).unwrap();
            stripped += 1;
        }
    }
    assert_eq!(stripped, 1);
    let before = t.robot_record(game);
    let log = t.robot();
    assert!(
        log.contains(&format!(
            "game {game}: the turn mail #1 from {mover_address} arrived without its turn"
        )),
        "{log}"
    );
    assert!(
        !log.contains("refused") && !log.contains("registered"),
        "{log}"
    );
    assert_eq!(t.local.waiting(), 0, "dealt with");
    assert!(
        t.local.sent().is_empty(),
        "not answered: {:?}",
        t.local.sent()
    );
    assert_eq!(t.robot_record(game), before, "nothing taken");
    // The opponent's desk says what to do; the sender resends.
    let other = if other_address == t.ann.address {
        &t.ann
    } else {
        &t.bo
    };
    let mut told = String::new();
    for e in std::fs::read_dir(&other.inbox).unwrap().flatten() {
        let out = yam_tests::yam!()
            .args(["read", "--eml", e.path().to_str().unwrap(), "--data-dir"])
            .arg(&other.data)
            .output()
            .unwrap();
        assert!(!out.status.success(), "refused");
        told.push_str(&String::from_utf8_lossy(&out.stderr));
        told.push_str(&String::from_utf8_lossy(&out.stdout));
        std::fs::remove_file(e.path()).unwrap();
    }
    assert!(told.contains("arrived without its turn"), "{told}");
    let mover = if mover_address == t.ann.address {
        &t.ann
    } else {
        &t.bo
    };
    mover.yam(&["resend", game]);
    // The resent mail keeps its Message-ID (a resend is recognisably the
    // same mail), but its text is whole now: the robot takes its turn (a
    // mail is the same mail only if its text is the same too), and so does
    // the opponent's desk.
    let log = t.robot();
    assert!(
        log.contains(&format!("witnessed {game}: 1 new event(s)")) && !log.contains("refused"),
        "{log}"
    );
    assert!(t.local.sent().is_empty());
    t.ann.read();
    t.bo.read();
    // The opponent's next move: the robot has the turn before it already
    // (`a_refereed_game_whose_copy_was_lost_catches_up_with_the_next_mail`
    // shows the catching up).
    let other = if other_address == t.ann.address {
        &t.ann
    } else {
        &t.bo
    };
    assert_eq!(other.status(game), "YOU");
    other.yam(&["move", game, "--auto", "random", "--seed", "2"]);
    let log = t.robot();
    assert!(
        log.contains(&format!("witnessed {game}: 1 new event(s)")) && !log.contains("caught up"),
        "{log}"
    );
    assert!(
        t.local.sent().is_empty(),
        "an accepted turn is not answered"
    );
    t.ann.read();
    t.bo.read();
    assert_same_records(&t, game);
    // A stranger naming the game in the same way (only Yam writes the
    // header) is logged as well, and mailed nothing: before, a turn mail
    // of a player bound to no key went the command path and was answered
    // with a welcome and a token.
    let forged = format!(
        "From: eve@elsewhere.test\r\nTo: robot@yam.test\r\nMessage-ID: <eve-1@elsewhere.test>\r\n\
         Subject: [Yam] Khan {game} #2\r\nX-Yam-Game: {game} 2\r\n\r\nA move was played.\r\n"
    );
    t.local.deliver_raw(forged.as_bytes());
    let sent = t.local.sent().len();
    let log = stderr(&t.local.run());
    assert!(
        log.contains(
            "from eve@elsewhere.test (bound to no key of the game) arrived without its turn"
        ),
        "{log}"
    );
    assert_eq!(t.local.sent().len(), sent, "{log}");
}

/// How many done markers the robot's journal holds.
fn done_markers(local: &Local) -> usize {
    std::fs::read_dir(local.root.join("data/robot/journal/done"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".done"))
        .count()
}

/// The wall clock, in seconds since the epoch (the robot's clock is set
/// from it, days ahead).
fn wall_clock() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

#[test]
fn done_markers_are_pruned_after_the_configured_days() {
    let mut local = Local::new();
    local.register("ann@player.test");
    let done = || done_markers(&local);
    assert_eq!(done(), 1, "the registration mail is remembered");
    let now = wall_clock();
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

#[test]
fn the_journal_is_pruned_once_a_day_across_runs() {
    let mut local = Local::new();
    local.register("ann@player.test");
    let now = wall_clock();
    let day = 86_400;
    let config = local.config.clone();
    let at = |clock: u64| robot_once(&config, &[("YAM_ROBOT_NOW", &clock.to_string())]);
    let out = at(now + 31 * day);
    assert!(out.status.success());
    assert!(stderr(&out).contains("1 done marker(s) older than 30 days pruned"));
    // A second mail, read an hour later by the robot's clock: its marker,
    // written now, is older than 30 days by that clock, but the journal
    // was pruned less than a day ago, by the run before this process.
    local.deliver("bo@player.test", "help", "help");
    let out = at(now + 31 * day + 3_600);
    assert!(out.status.success());
    assert_eq!(done_markers(&local), 1, "{}", stderr(&out));
    let out = at(now + 31 * day + 7_200);
    assert!(!stderr(&out).contains("pruned"), "{}", stderr(&out));
    assert_eq!(done_markers(&local), 1);
    // A day after the last pruning, pruned again.
    let out = at(now + 32 * day + 1);
    assert!(stderr(&out).contains("1 done marker(s) older than 30 days pruned"));
    assert_eq!(done_markers(&local), 0);
    // A store of an earlier build has no note: pruned at its first look.
    local.deliver("cy@player.test", "help", "help");
    assert!(at(now + 32 * day + 2).status.success());
    assert_eq!(
        done_markers(&local),
        1,
        "read within the day of the last pruning"
    );
    std::fs::remove_file(local.root.join("data/robot/journal.pruned")).unwrap();
    let out = at(now + 32 * day + 3);
    assert!(
        stderr(&out).contains("1 done marker(s) older than 30 days pruned"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_refereed_game_whose_copy_was_lost_catches_up_with_the_next_mail() {
    let mut t = Referee::new();
    let game = "khan-ref-lost";
    open_refereed(&mut t, game, &["--game-type", "khan", "--ruleset", "basic"]);
    play_refereed(&mut t, game, 2);
    let before = t.robot_record(game);
    // The next turn reaches the opponent but its copy to the robot is lost.
    let mover = if t.ann.status(game) == "YOU" {
        &t.ann
    } else {
        &t.bo
    };
    mover.yam(&["move", game, "--auto", "random", "--seed", "77"]);
    assert_eq!(t.route(), 1);
    for e in std::fs::read_dir(t.local.root.join("in/new"))
        .unwrap()
        .flatten()
    {
        std::fs::remove_file(e.path()).unwrap();
    }
    t.ann.read();
    t.bo.read();
    assert_eq!(t.robot_record(game), before, "the robot missed the turn");
    // The other player's answer brings the missed turn along.
    let mover = if t.ann.status(game) == "YOU" {
        &t.ann
    } else {
        &t.bo
    };
    mover.yam(&["move", game, "--auto", "random", "--seed", "78"]);
    let log = t.robot();
    assert!(
        log.contains("caught up on 1 event(s) of the other player missed before"),
        "{log}"
    );
    t.ann.read();
    t.bo.read();
    assert_same_records(&t, game);
}

impl Local {
    /// The robot's relay goes down: its outgoing directory is moved away
    /// until [`Local::relay_up`], so no mail of its can go out.
    fn relay_down(&self) {
        std::fs::rename(self.root.join("out"), self.root.join("out-away")).unwrap();
    }

    /// The relay [`Local::relay_down`] took down is back.
    fn relay_up(&self) {
        std::fs::rename(self.root.join("out-away"), self.root.join("out")).unwrap();
    }

    /// The limits block of the configuration replaced by `limits` (YAML
    /// lines under `limits:`, indented by two).
    fn limits(&self, limits: &str) {
        let text = std::fs::read_to_string(&self.config).unwrap();
        let at = text.find("limits:\n").unwrap();
        std::fs::write(&self.config, format!("{}limits:\n{limits}", &text[..at])).unwrap();
    }
}

/// The relay back on day 30 (`at` gives a day's clock reading), Bo gets
/// Ann's move `Ng3-f3`; the robot's look on day 41 claims no forfeit
/// against him (`why`: how the move came to be mailed late).
fn bo_gets_the_move_on_day_30_and_no_forfeit_on_day_41(
    local: &Local,
    at: impl Fn(u64) -> String,
    why: &str,
) {
    local.relay_up();
    let back = robot_once(&local.config, &[("YAM_ROBOT_NOW", &at(30))]);
    assert!(
        local
            .sent()
            .iter()
            .any(|(to, r)| to.contains("bo@") && r.body.contains("Ng3-f3")),
        "setup: Bo gets Ann's move on day 30: {}",
        stderr(&back)
    );
    let out = robot_once(&local.config, &[("YAM_ROBOT_NOW", &at(41))]);
    let log = stderr(&out);
    assert!(
        !log.contains("forfeit claimed against bo@player.test"),
        "Bo got Ann's move on day 30 ({why}); on day 41 the robot claimed a forfeit against him:\n{log}"
    );
}

/// Ann (white, to move) and Bo in a Khan game; their tokens and the game.
fn khan_between_ann_and_bo(local: &mut Local) -> (String, String, String) {
    let ann = local.register("ann@player.test");
    let bo = local.register("bo@player.test");
    local.deliver(
        "ann@player.test",
        "challenge khan basic bo@player.test",
        &format!("token: {ann}"),
    );
    local.run();
    let game = game_of(local);
    local.deliver(
        "bo@player.test",
        &format!("join {game}"),
        &format!("token: {bo}"),
    );
    local.run();
    (ann, bo, game)
}

#[test]
fn a_flood_in_a_players_name_neither_delays_nor_drops_her_move_and_no_forfeit_follows() {
    let mut local = Local::new();
    // The defaults, with a small budget a look so the flood spans looks.
    local.limits("  max_mail_bytes: 1048576\n  per_cycle: 10\n");
    let (ann, _bo, game) = khan_between_ann_and_bo(&mut local);
    let to_ann = |local: &Local| {
        local
            .sent()
            .into_iter()
            .filter(|(to, _)| to.contains("ann@"))
            .count()
    };
    let before = to_ann(&local);
    // Sixty forged mails in Ann's name (no token: the forger never saw it),
    // her real move among them, then more forgeries.
    for i in 0..30 {
        local.deliver(
            "ann@player.test",
            &format!("resign {game}"),
            &format!("forged {i}"),
        );
    }
    local.deliver(
        "ann@player.test",
        &format!("move {game} Ng3-f3 #0"),
        &format!("token: {ann}"),
    );
    for i in 30..60 {
        local.deliver(
            "ann@player.test",
            &format!("resign {game}"),
            &format!("forged {i}"),
        );
    }
    // One look at the mailbox: her move is applied and answered at once,
    // whatever the budget left for the forgeries.
    let out = local.run();
    assert_eq!(replay(&local.record(&game)).plies(), 1, "{}", stderr(&out));
    assert!(
        replay(&local.record(&game)).ending().is_none(),
        "nobody resigned"
    );
    last_to(&local, "bo", "Ng3-f3");
    // The forgeries are read a budget at a time, and ignored beyond the
    // sender's allowance; Ann is told of them once, not sixty times.
    for _ in 0..8 {
        local.run();
    }
    assert_eq!(local.waiting(), 0, "every mail is dealt with");
    let told = to_ann(&local) - before;
    assert!(
        told <= 2,
        "Ann got {told} mails for one move and sixty forgeries"
    );
    // Forty days on, Bo (to move) is the silent one: no forfeit against Ann.
    let meta =
        std::fs::read_to_string(local.root.join("data/games").join(&game).join("robot.yaml"))
            .unwrap();
    let last: u64 = meta
        .lines()
        .find_map(|l| l.strip_prefix("last_activity: "))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let out = robot_once(
        &local.config,
        &[("YAM_ROBOT_NOW", &(last + 41 * 86_400).to_string())],
    );
    let log = stderr(&out);
    assert!(!log.contains("forfeit claimed against ann"), "{log}");
    assert!(
        log.contains("forfeit claimed against bo@player.test"),
        "{log}"
    );
}

#[test]
fn a_move_the_robot_could_not_mail_for_a_month_is_not_a_forfeit_ten_days_after_it_went() {
    // Real life: the robot's mail relay is down for a month (a lapsed
    // account, a relay that refuses it). Ann moves on day 0; the robot
    // applies the move, but its mail to Bo cannot go out, and the plan is
    // carried on at every look until the relay is back on day 30, when
    // Bo gets the move. On day 41 Bo has had it for 11 days, yet the
    // robot counts his silence from the move it took on day 0 and signs a
    // forfeit claim against him. The desks were mended for this in the
    // thirty-ninth step (docs/mail.md: "A silence starts when its mail
    // goes out": the opponent cannot answer a turn he has not been sent);
    // the robot, which relays every move of its games, was not.
    let mut local = Local::new();
    let (ann, _bo, game) = khan_between_ann_and_bo(&mut local);
    let start = last_activity(&local, &game);
    let at = |days: u64| (start + days * 86_400 + 60).to_string();
    local.relay_down();
    local.deliver(
        "ann@player.test",
        &format!("move {game} Ng3-f3 #0"),
        &format!("token: {ann}"),
    );
    let first = robot_once(&local.config, &[("YAM_ROBOT_NOW", &at(0))]);
    assert_eq!(
        replay(&local.record(&game)).plies(),
        1,
        "setup: the move is taken: {}",
        stderr(&first)
    );
    bo_gets_the_move_on_day_30_and_no_forfeit_on_day_41(
        &local,
        at,
        "the robot's mail could not go out before",
    );
}

#[test]
fn a_move_decided_with_the_clock_behind_and_mailed_late_is_not_a_forfeit() {
    // Real life: the small machine of the clock test below
    // (`a_move_taken_while_the_robots_clock_was_behind_forfeits_nobody_once_it_is_right`)
    // boots after a power cut 60 days behind, with its relay unreachable
    // (the network it needs is the one that is down, or the relay
    // account lapsed meanwhile). It takes Ann's move: the game's clock
    // never goes back, so Bo's silence starts at the game's last
    // activity, while the plan's `decided_at` is the clock's reading, 60
    // days earlier. When the relay is back on day 30 and Bo gets the
    // move, `Robot::mailed_late` looks for silences that start at
    // `decided_at`, finds none, and leaves Bo's starting on day 0: on day
    // 41 the robot claims a forfeit against a player who has had the move
    // for eleven days (docs/robot.md: "when its mails go out at last, the
    // silences the plan started ... are counted from then").
    let mut local = Local::new();
    let (ann, _bo, game) = khan_between_ann_and_bo(&mut local);
    let start = last_activity(&local, &game);
    let at = |days: u64| (start + days * 86_400 + 60).to_string();
    local.relay_down();
    local.deliver(
        "ann@player.test",
        &format!("move {game} Ng3-f3 #0"),
        &format!("token: {ann}"),
    );
    let behind = (start - 60 * 86_400).to_string();
    let first = robot_once(&local.config, &[("YAM_ROBOT_NOW", &behind)]);
    assert_eq!(
        replay(&local.record(&game)).plies(),
        1,
        "setup: the move is taken: {}",
        stderr(&first)
    );
    // The clock is right again; the relay is still down.
    robot_once(&local.config, &[("YAM_ROBOT_NOW", &at(1))]);
    bo_gets_the_move_on_day_30_and_no_forfeit_on_day_41(
        &local,
        at,
        "decided while the robot's clock was behind, mailed late",
    );
}

#[test]
fn a_reminder_the_robot_could_not_mail_for_a_day_does_not_restart_the_silence() {
    // Real life (the robot's relay down for a day), or a silent player
    // whose mail server refuses the robot's reminder for a while: Ann,
    // to move, has been silent since day 0. The day-14 reminder cannot
    // go out on day 14; the relay is back on day 15 and it goes. Its plan
    // wrote only the reminder's bookkeeping (`last_activity` stays the
    // day Ann's silence began), so `Robot::mailed_late` takes Ann's move
    // clock, which starts at `last_activity`, for a silence the reminder
    // "started", and restarts it on day 15: the reminders of days 28 and
    // 35 and the forfeit of day 40 slide by fifteen days, and Bo waits
    // 55 days for a claim the rules give him at 40. docs/robot.md: only
    // a silence the late plan started (a move, an offer) counts from when
    // its mail went; a reminder starts none.
    let mut local = Local::new();
    let (game, _, _) = ann_and_bo_at_khan(&mut local);
    let at = days_after_last_activity(&local, &game);
    local.relay_down();
    let blocked = robot_once(&local.config, &[("YAM_ROBOT_NOW", &at(14))]);
    local.relay_up();
    let reminded = |local: &Local| {
        local
            .sent()
            .into_iter()
            .filter(|(to, r)| to.contains("ann") && r.body.starts_with("Reminder"))
            .count()
    };
    assert_eq!(
        reminded(&local),
        0,
        "setup: the day-14 reminder cannot go out: {}",
        stderr(&blocked)
    );
    let back = robot_once(&local.config, &[("YAM_ROBOT_NOW", &at(15))]);
    assert_eq!(
        reminded(&local),
        1,
        "setup: the day-14 reminder goes on day 15: {}",
        stderr(&back)
    );
    let mut log = stderr(&back);
    for day in [28, 35, 40] {
        log += &stderr(&robot_once(&local.config, &[("YAM_ROBOT_NOW", &at(day))]));
    }
    assert!(
        log.contains("forfeit claimed against ann@player.test"),
        "Ann has been silent 40 days (her day-14 reminder went a day late), yet no forfeit is claimed:\n{log}\n{}",
        std::fs::read_to_string(local.root.join("data/games").join(&game).join("robot.yaml"))
            .unwrap()
    );
}

#[test]
fn forged_newcomers_get_a_bounded_number_of_welcomes() {
    let mut local = Local::new();
    local.limits("  max_mail_bytes: 1048576\n  answers_per_hour: 20\n");
    // A hundred forged senders, each twice.
    for round in 0..2 {
        for i in 0..100 {
            local.deliver(
                &format!("victim{i}@example.com"),
                "help",
                &format!("round {round}"),
            );
        }
    }
    for _ in 0..4 {
        local.run();
    }
    assert_eq!(local.waiting(), 0);
    let sent = local.sent();
    assert_eq!(sent.len(), 20, "the hour's allowance of answers");
    let mut to: Vec<String> = sent.into_iter().map(|(to, _)| to).collect();
    to.sort();
    to.dedup();
    assert_eq!(to.len(), 20, "never two to one address");
}

#[test]
fn invitations_are_limited_and_expire() {
    let mut local = Local::new();
    local.limits("  max_mail_bytes: 1048576\n  invitations_per_day: 3\n  invitation_days: 14\n");
    let ann = local.register("ann@player.test");
    for i in 0..5 {
        local.deliver(
            "ann@player.test",
            &format!("challenge khan basic friend{i}@example.com"),
            &format!("token: {ann}"),
        );
    }
    local.run();
    let invited: Vec<String> = local
        .sent()
        .into_iter()
        .map(|(to, _)| to)
        .filter(|to| to.contains("friend"))
        .collect();
    assert_eq!(invited.len(), 3, "{invited:?}");
    last_to(&local, "ann", "invitations today");
    // Fifteen days on, the unjoined challenges expire, and Ann is told.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let out = robot_once(
        &local.config,
        &[("YAM_ROBOT_NOW", &(now + 15 * 86_400).to_string())],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let expired = local
        .sent()
        .into_iter()
        .filter(|(to, r)| to.contains("ann@") && r.subject.contains("expired"))
        .count();
    assert_eq!(expired, 3, "{}", stderr(&out));
}

/// The day's invitations are counted among the games whose ids name today
/// or yesterday by the robot's clock. A clock set back by ten minutes
/// across midnight UTC (a step of NTP, a zone corrected: docs/robot.md
/// keeps the counts across a clock set back by less than their window)
/// makes the invitations of the last minutes name "tomorrow", and they
/// count for nothing: the player gets a fresh day's allowance.
#[test]
fn a_clock_set_back_across_midnight_gives_no_fresh_day_of_invitations() {
    let mut local = Local::new();
    local.limits("  max_mail_bytes: 1048576\n  invitations_per_day: 3\n  invitation_days: 14\n");
    let ann = local.register("ann@player.test");
    let day = 86_400;
    // Five minutes past a midnight UTC to come.
    let midnight = (wall_clock() / day + 2) * day;
    let config = local.config.clone();
    let at = |clock: u64| {
        let out = robot_once(&config, &[("YAM_ROBOT_NOW", &clock.to_string())]);
        assert!(out.status.success(), "{}", stderr(&out));
    };
    for i in 0..3 {
        local.deliver(
            "ann@player.test",
            &format!("challenge khan basic friend{i}@example.com"),
            &format!("token: {ann}"),
        );
    }
    at(midnight + 300);
    let invited = |local: &Local| {
        local
            .sent()
            .into_iter()
            .filter(|(to, _)| to.contains("friend"))
            .count()
    };
    assert_eq!(invited(&local), 3, "setup: the day's three invitations");
    // The clock stepped back ten minutes, to five to midnight.
    local.deliver(
        "ann@player.test",
        "challenge khan basic friend3@example.com",
        &format!("token: {ann}"),
    );
    at(midnight - 300);
    assert_eq!(
        invited(&local),
        3,
        "ten minutes after her third invitation of the day (invitations_per_day: 3), with the clock set back across midnight, Ann's fourth went out"
    );
}

#[test]
fn a_stranger_s_witnessed_game_never_enters_another_player_s_register_nor_mails_her() {
    let mut t = Referee::new();
    let genuine = "khan-ref-genuine";
    open_refereed(
        &mut t,
        genuine,
        &["--game-type", "khan", "--ruleset", "basic"],
    );
    play_refereed(&mut t, genuine, 2);
    // A stranger with her own key challenges Ann's address, and a second
    // key of hers answers in Ann's name (a forged From: the robot reads
    // mails, it cannot know who wrote them).
    let root = t.local.root.clone();
    let eve = Desk::new(&root, "eve", "eve@player.test");
    let mallory = Desk::new(&root, "mallory", "ann@player.test");
    let ann = std::mem::replace(&mut t.ann, eve);
    let bo = std::mem::replace(&mut t.bo, mallory);
    let stranger = "khan-stranger";
    open_refereed_unconfirmed(
        &mut t,
        stranger,
        &["--game-type", "khan", "--ruleset", "basic"],
    );
    let mails = t.local.sent();
    assert!(
        mails.iter().all(|(to, _)| !to.contains("ann@player.test")),
        "no mail to Ann about a game of a key not hers: {mails:?}"
    );
    // Eve confirms her own key, as an honest player would.
    confirm_keys(&mut t);
    play_refereed(&mut t, stranger, 2);
    let eve = std::mem::replace(&mut t.ann, ann);
    let mallory = std::mem::replace(&mut t.bo, bo);
    drop((eve, mallory));
    let meta =
        std::fs::read_to_string(root.join("data/games").join(stranger).join("robot.yaml")).unwrap();
    assert!(meta.contains("ann@player.test (unconfirmed)"), "{meta}");
    // The stranger's game is kept under its keys, never under Ann's address.
    let mut under_keys = 0;
    for dir in std::fs::read_dir(root.join("data/robot/register"))
        .unwrap()
        .flatten()
    {
        if dir.path().join(format!("{stranger}.yam")).exists() {
            assert!(dir.file_name().to_string_lossy().starts_with("key-"));
            under_keys += 1;
        }
    }
    assert_eq!(under_keys, 2, "one copy under each key of the game");
    // Weeks of silence: reminders and the forfeit notice go to confirmed
    // addresses only; Ann hears nothing of the stranger's game.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    for days in [15u64, 29, 36, 41, 42, 70] {
        let at = (now + days * 86_400).to_string();
        let out = robot_once(&t.local.config, &[("YAM_ROBOT_NOW", &at)]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let to_ann: Vec<Received> = t
        .local
        .sent()
        .into_iter()
        .filter(|(to, _)| to.contains("ann@player.test"))
        .map(|(_, r)| r)
        .collect();
    assert!(
        to_ann
            .iter()
            .any(|r| r.subject.contains(genuine) || r.body.contains(genuine)),
        "Ann's own game still mails her: {to_ann:?}"
    );
    assert!(
        to_ann
            .iter()
            .all(|r| !r.subject.contains(stranger) && !r.body.contains(stranger)),
        "{to_ann:?}"
    );
    // Her register (`list`) shows her game and not the stranger's; `show`
    // does not reach it.
    let token = t.local.register("ann@player.test");
    t.local.deliver(
        "ann@player.test",
        "list",
        &format!("token: {token}\nshow {stranger}"),
    );
    t.local.run();
    let answer = last_to(&t.local, "ann@player.test", "> list");
    assert!(
        answer.body.contains(&format!("{genuine}  Khan")),
        "{}",
        answer.body
    );
    assert!(answer.body.contains("1 game(s)"), "{}", answer.body);
    assert!(
        answer
            .body
            .contains(&format!("Refused: you are not a player of {stranger}")),
        "{}",
        answer.body
    );
    assert!(
        !answer.body.contains(&format!("{stranger}  Khan")),
        "{}",
        answer.body
    );
}

#[test]
fn a_confirmation_code_is_needed_and_only_the_address_s_own_code_counts() {
    let mut t = Referee::new();
    let game = "khan-ref-code";
    open_refereed_unconfirmed(&mut t, game, &["--game-type", "khan", "--ruleset", "basic"]);
    let codes: Vec<(String, String)> = t
        .local
        .sent()
        .into_iter()
        .filter_map(|(to, r)| {
            let code = r
                .body
                .lines()
                .find_map(|l| l.trim().strip_prefix("confirm "))?
                .to_owned();
            Some((to, code))
        })
        .collect();
    assert_eq!(codes.len(), 2, "one confirmation to each player");
    // A guess, and Bo's code sent in Ann's name, confirm nothing and are
    // not answered.
    let bo_code = &codes.iter().find(|(to, _)| to.contains("bo@")).unwrap().1;
    let sent = t.local.sent().len();
    t.local
        .deliver("ann@player.test", "confirm", "confirm 0123456789abcdef");
    t.local
        .deliver("ann@player.test", "confirm", &format!("confirm {bo_code}"));
    let log = stderr(&t.local.run());
    assert!(!log.contains("confirmed key"), "{log}");
    assert_eq!(t.local.sent().len(), sent, "no answer to a wrong code");
    // The right ones confirm.
    confirm_keys(&mut t);
}

#[test]
fn an_outlook_style_reply_to_an_invitation_is_accepted() {
    let mut local = Local::new();
    let ann = local.register("ann@player.test");
    local.deliver(
        "ann@player.test",
        "challenge khan basic bo@player.test",
        &format!("token: {ann}"),
    );
    local.run();
    let game = game_of(&local);
    let invitation = last_to(&local, "bo@player.test", "challenges you");
    let token = token_in(&invitation.body).expect("a token for a new player");
    assert!(invitation.body.contains("token: YOUR-TOKEN"));
    // The answer on top, the original below it, unquoted, as Outlook
    // writes it: its template line `token: YOUR-TOKEN` comes last.
    let body = format!(
        "join {game}\ntoken: {token}\n\nBo\n\n________________________________\nFrom: Yam robot <robot@yam.test>\nSent: Tuesday, December 1, 2026 10:00 AM\nTo: bo@player.test\nSubject: {}\n\n{}",
        invitation.subject, invitation.body
    );
    local.deliver(
        "bo@player.test",
        &format!("RE: {}", invitation.subject),
        &body,
    );
    local.run();
    let answer = last_to(&local, "bo@player.test", &format!("> join {game}"));
    assert!(
        answer.body.contains(&format!("You joined {game}")),
        "{}",
        answer.body
    );
    assert!(!answer.body.contains("Refused"), "{}", answer.body);
    assert!(!answer.body.contains("Not understood"), "{}", answer.body);
    // Without the separator line, the first token line still counts.
    local.deliver(
        "bo@player.test",
        &format!("Re: {}", invitation.subject),
        &format!("show {game}\ntoken: {token}\n\n{}", invitation.body),
    );
    local.run();
    let answer = last_to(&local, "bo@player.test", "> show");
    assert!(!answer.body.contains("token is wrong"), "{}", answer.body);
}

#[test]
fn a_long_move_is_quoted_in_part() {
    let mut local = Local::new();
    let ann = local.register("ann@player.test");
    local.deliver(
        "ann@player.test",
        "challenge genghis-khan",
        &format!("token: {ann}"),
    );
    local.run();
    let long = "Q".repeat(100_000);
    local.deliver(
        "ann@player.test",
        "a long move",
        &format!("token: {ann}\nmove {long}\n"),
    );
    local.run();
    let answer = last_to(&local, "ann@player.test", "> move");
    assert!(answer.body.len() < 20_000, "{} bytes", answer.body.len());
    assert!(!answer.body.contains(&"Q".repeat(200)));
    assert!(
        answer
            .body
            .contains(&format!("{}… (100005 bytes)", "Q".repeat(75))),
        "{}",
        &answer.body[..answer.body.len().min(2000)]
    );
}

#[test]
fn castle_siege_answers_give_the_setup_format_and_a_whole_turn_that_is_accepted() {
    let mut local = Local::new();
    let ann = local.register("ann@player.test");
    let bo = local.register("bo@player.test");
    // `help` names Castle Siege.
    local.deliver("ann@player.test", "help", &format!("token: {ann}"));
    local.run();
    let help = last_to(&local, "ann@player.test", "> help");
    assert!(help.body.contains("castle-siege"), "{}", help.body);
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
    let joined = last_to(&local, "bo@player.test", "The game begins");
    for needed in [
        "Defender:CKAO/OACK/KCOA/AOKC",
        "Attacker:KKRTTRKK/AA/SS/CC/CC/SS/AA/KKRTTRKK",
        "c6-f6 / c5-f5 / c4-f4 / c3-f3",
    ] {
        assert!(joined.body.contains(needed), "{needed}: {}", joined.body);
    }
    // A placement to copy goes to the side to seal alone: the Defender,
    // told that Bo joined; never to her opponent.
    let told = last_to(&local, "ann@player.test", "joined");
    assert!(
        told.body.contains("Reply (a legal placement"),
        "{}",
        told.body
    );
    assert!(
        !joined.body.contains("Reply (a legal placement"),
        "{}",
        joined.body
    );
    let tokens = [("ann@player.test", ann), ("bo@player.test", bo)];
    // Each player to move asks for the board and sends back the reply the
    // robot suggests, as it stands.
    let mut whole_turns = 0;
    for n in 0..12 {
        let record = local.record(&game);
        let before = replay(&record);
        if before.ending().is_some() || whole_turns == 3 {
            break;
        }
        let seat = before.seat_of(&before.to_move_key().unwrap()).unwrap();
        let tag = ["Defender", "Attacker"][seat];
        let line = record
            .lines()
            .find(|l| l.starts_with(&format!("[{tag} ")))
            .unwrap();
        let (address, token) = tokens
            .iter()
            .find(|(a, _)| line.contains(a.split('@').next().unwrap()))
            .unwrap();
        // The outbox emptied first: the answer read is this one.
        for e in std::fs::read_dir(local.root.join("out")).unwrap().flatten() {
            std::fs::remove_file(e.path()).unwrap();
        }
        local.deliver(address, &format!("show {game}"), &format!("token: {token}"));
        local.run();
        let shown = last_to(&local, address, "> show");
        let reply = shown
            .body
            .lines()
            .rfind(|l| l.trim_start().starts_with(&format!("move {game} ")))
            .unwrap_or_else(|| panic!("no reply to copy: {}", shown.body))
            .to_owned();
        let in_play = !reply.contains("Defender:") && !reply.contains("Attacker:");
        if in_play {
            // A whole turn: the Move phase, and the turn's end.
            let words: Vec<&str> = reply.split_whitespace().collect();
            assert_eq!(words[2], "Move", "{reply}");
            assert!(reply.contains(" End #"), "{reply}");
            assert!(shown.body.contains("A whole turn goes in one mail"));
        }
        local.deliver(
            address,
            &format!("Re: {}", shown.subject),
            &format!("{reply}\ntoken: {token}\nseed: turn {n}"),
        );
        local.run();
        let after = replay_of(&local, &game);
        assert!(
            after.events().len() > before.events().len(),
            "the suggested reply {reply:?} was not taken: {}",
            last_to(&local, address, "> move").body
        );
        if in_play {
            whole_turns += 1;
            // The whole turn was resolved in one mail: the other side is to move.
            assert!(
                after.ending().is_some()
                    || after.seat_of(&after.to_move_key().unwrap()) != Some(seat),
                "{reply}"
            );
        }
    }
    assert!(whole_turns >= 2, "{whole_turns} whole turns");
}

#[test]
fn a_plan_retried_logs_its_lines_once() {
    let mut local = Local::new();
    let ann = local.register("ann@player.test");
    // Sending fails: the answers' directory is a file.
    let out = local.root.join("out");
    std::fs::rename(&out, local.root.join("out.away")).unwrap();
    std::fs::write(&out, b"not a directory").unwrap();
    local.deliver("ann@player.test", "list", &format!("token: {ann}"));
    let first = robot_once(&local.config, &[]);
    assert!(!first.status.success());
    assert_eq!(
        stderr(&first).matches("answered").count(),
        1,
        "{}",
        stderr(&first)
    );
    let again = robot_once(&local.config, &[]);
    assert!(!again.status.success());
    assert_eq!(
        stderr(&again).matches("answered").count(),
        0,
        "{}",
        stderr(&again)
    );
    std::fs::remove_file(&out).unwrap();
    std::fs::rename(local.root.join("out.away"), &out).unwrap();
    let log = stderr(&local.run());
    assert_eq!(log.matches("answered").count(), 0, "{log}");
    last_to(&local, "ann@player.test", "> list");
}

#[test]
fn a_player_s_card_makes_her_new_key_known_once_she_confirms() {
    let mut t = Referee::new();
    open_refereed(
        &mut t,
        "khan-ref-card",
        &["--game-type", "khan", "--ruleset", "basic"],
    );
    // Ann on a new machine, with a new key, mails the robot her card.
    let fresh = Desk::new(&t.local.root, "ann-new", "ann@player.test");
    fresh.yam(&["identity", "send", "robot@yam.test"]);
    let mails: Vec<PathBuf> = std::fs::read_dir(&fresh.outbox)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "eml"))
        .collect();
    assert_eq!(mails.len(), 1);
    let card = std::fs::read(&mails[0]).unwrap();
    t.local.deliver_raw(&card);
    // The same card under another sender's From moves nothing.
    let forged = String::from_utf8_lossy(&card).replacen(
        "From: ",
        "From: eve@player.test\r\nX-Was-From: ",
        1,
    );
    t.local.deliver_raw(forged.as_bytes());
    let log = stderr(&t.local.run());
    assert!(
        log.contains("claims ann@player.test: a confirmation is mailed to ann@player.test"),
        "{log}"
    );
    assert!(
        log.contains("a card for ann@player.test, not the sender"),
        "{log}"
    );
    let sent = t.local.sent();
    assert_eq!(sent.len(), 1, "one confirmation, to Ann: {sent:?}");
    assert!(sent[0].0.contains("ann@player.test"));
    assert!(
        sent[0]
            .1
            .body
            .contains("received a Yam card from your address")
    );
    confirm_keys(&mut t);
    let book = std::fs::read_dir(t.local.root.join("data/robot/keys"))
        .unwrap()
        .flatten()
        .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
        .find(|text| text.contains("address: ann@player.test"))
        .expect("Ann's keys");
    let keys = book
        .split("pending")
        .next()
        .unwrap()
        .lines()
        .filter(|l| l.trim_start().starts_with("- "))
        .count();
    assert_eq!(keys, 2, "{book}");
}

/// The robot trusts its store only as far as the verified checkpoint
/// beside each record vouches: a stored record changed behind its back
/// (a covered event's signature broken) is verified whole and the command
/// refused, nothing written; the honest record back, the game goes on, and
/// a store without checkpoints (an earlier build's) is verified whole once.
#[test]
fn a_record_changed_behind_the_robots_back_is_verified_whole() {
    let mut local = Local::new();
    let (ann, bo, game) = khan_between_ann_and_bo(&mut local);
    local.deliver("ann@player.test", "move Ng3-f3", &format!("token: {ann}"));
    local.run();
    local.deliver("bo@player.test", "move Ae7-f6", &format!("token: {bo}"));
    local.run();
    let dir = local.root.join("data/games").join(&game);
    assert!(
        std::fs::read_to_string(dir.join("checkpoint"))
            .unwrap()
            .starts_with("yam-checkpoint 2\n")
    );
    let honest = local.record(&game);
    assert_eq!(replay(&honest).plies(), 2);

    // The signature of a covered event (the second move's), changed.
    let forged_event = {
        let at = honest.match_indices("[%event").nth(3).unwrap().0;
        let args = &honest[at + "[%event".len()..];
        let end = args.find(']').unwrap();
        let signature = args[..end].split_whitespace().nth(1).unwrap();
        let mut bytes = signature.as_bytes().to_vec();
        bytes[2] = if bytes[2] == b'A' { b'B' } else { b'A' };
        (signature.to_owned(), String::from_utf8(bytes).unwrap())
    };
    let forged = honest.replacen(&forged_event.0, &forged_event.1, 1);
    assert_ne!(forged, honest);
    std::fs::write(dir.join("record.yam"), &forged).unwrap();
    let answers = local.sent().len();
    local.deliver("ann@player.test", "move Nf3-e3", &format!("token: {ann}"));
    let out = robot_once(&local.config, &[]);
    // A damaged store is the operator's to mend: Ann's move waits unread,
    // unanswered, and the run names the record and its first fault.
    assert!(!out.status.success());
    let said = stderr(&out);
    assert!(
        said.contains("record.yam cannot be read: the record does not verify"),
        "{said}"
    );
    assert_eq!(local.sent().len(), answers, "no answer on a damaged store");
    assert_eq!(local.waiting(), 1, "Ann's move waits");
    assert_eq!(local.record(&game), forged, "nothing written");

    // The honest record back, the checkpoint gone (an earlier build's
    // store): verified whole, the waiting move played, a checkpoint kept
    // again.
    std::fs::write(dir.join("record.yam"), &honest).unwrap();
    std::fs::remove_file(dir.join("checkpoint")).unwrap();
    local.run();
    assert_eq!(local.waiting(), 0);
    assert_eq!(replay(&local.record(&game)).plies(), 3);
    assert!(dir.join("checkpoint").exists());
}

#[test]
fn after_a_takeback_undid_her_move_a_robot_player_can_still_offer_to_take_back_her_last_move() {
    // Attack (every step honest): Ann plays, Bo replies, Ann plays again;
    // Bo asks to take back his move, which goes back past Ann's second
    // move too, and Ann accepts. Ann then asks to take back her first
    // move, the one still on the board. The robot finds "her last move"
    // by scanning every event, takes the second move (the one the
    // take-back undid), and offers to go back into the undone line,
    // which the referee refuses. What Ann loses: she cannot offer a
    // take-back of the move on the board (until she moves again).
    let mut local = Local::new();
    let (game, ann, bo) = ann_and_bo_at_khan(&mut local);
    local.says("ann@player.test", &ann, "move Ng3-f3 #0");
    local.says("bo@player.test", &bo, "move Ae7-f6 #1");
    local.says("ann@player.test", &ann, "move Nf3-e3 #2");
    assert_eq!(replay(&local.record(&game)).plies(), 3);
    local.says("bo@player.test", &bo, "offer takeback");
    local.says("ann@player.test", &ann, "accept takeback");
    assert_eq!(
        replay(&local.record(&game)).plies(),
        1,
        "back after Ann's first move"
    );
    local.says("ann@player.test", &ann, "offer takeback");
    let r = replay(&local.record(&game));
    assert!(
        r.first_open_offer().is_some(),
        "Ann's take-back offer of the move on the board was refused (the referee would accept one back to before it): {:?}",
        local
            .sent()
            .into_iter()
            .filter(|(to, r)| to.contains("ann") && r.body.contains("Refused"))
            .filter_map(|(_, r)| r
                .body
                .lines()
                .find(|l| l.starts_with("Refused"))
                .map(str::to_owned))
            .collect::<Vec<_>>()
    );
    local.says("bo@player.test", &bo, "accept takeback");
    assert_eq!(replay(&local.record(&game)).plies(), 0);
}

#[test]
fn a_player_who_owes_a_move_cannot_stall_for_ever_by_offering_draws() {
    // Attack: Bo, to move, never moves. Every 35 days (inside the robot's
    // 40-day limit) he mails `offer draw`. The offer passes the duty to
    // Ann, who must decline it or be claimed against herself; both the
    // offer and her answer count as activity, so the silence clock starts
    // again every time. What Ann loses: a forfeit win against an
    // opponent who has not moved for 200 days; she must answer every
    // offer in time or lose the game herself.
    let mut local = Local::new();
    let (game, ann, bo) = ann_and_bo_at_khan(&mut local);
    local.says("ann@player.test", &ann, "move Ng3-f3 #0");
    let at = days_after_last_activity(&local, &game);
    let mut day = 0;
    while day + 35 <= 210 {
        day += 35;
        let now = at(day);
        local.deliver("bo@player.test", "offer draw", &format!("token: {bo}"));
        let out = robot_once(&local.config, &[("YAM_ROBOT_NOW", &now)]);
        assert!(out.status.success(), "{}", stderr(&out));
        local.deliver("ann@player.test", "decline draw", &format!("token: {ann}"));
        let out = robot_once(&local.config, &[("YAM_ROBOT_NOW", &now)]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let r = replay(&local.record(&game));
    assert_eq!(r.plies(), 1, "Bo never moved");
    let out = robot_once(&local.config, &[("YAM_ROBOT_NOW", &at(day + 1))]);
    assert!(out.status.success(), "{}", stderr(&out));
    let r = replay(&local.record(&game));
    assert!(
        !r.claims().is_empty(),
        "Bo has owed his move for {} days (the limit is 40), yet no forfeit was claimed: each draw offer, and Ann's forced decline, started the silence clock again",
        day + 1
    );
}

#[test]
fn the_reminder_for_an_unanswered_takeback_offer_says_what_is_owed() {
    // Attack: Ann, to move, does not move but mails `offer takeback`
    // (the robot takes offers from the player to move). The answer is now
    // Bo's to give (`owing`), and the robot reminds Bo, then claims
    // against him. But its reminder says "it has been your move" above a
    // status that reads "white (ann) to move" with Ann's legal moves and
    // never names the take-back offer (the status lists open draw
    // offers only). What Bo loses: told nothing he can act on, he may
    // ignore a reminder that looks mistaken, and loses the game by
    // forfeit for not answering an offer he was never shown again.
    let mut local = Local::new();
    let (game, ann, bo) = ann_and_bo_at_khan(&mut local);
    local.says("ann@player.test", &ann, "move Ng3-f3 #0");
    local.says("bo@player.test", &bo, "move Ae7-f6 #1");
    local.says("ann@player.test", &ann, "offer takeback");
    let r = replay(&local.record(&game));
    assert!(r.first_open_offer().is_some(), "setup: Ann's offer is open");
    let last = last_activity(&local, &game);
    let at = |days: u64| (last + days * 86_400 + 60).to_string();
    robot_once(&local.config, &[("YAM_ROBOT_NOW", &at(14))]);
    let reminder = local
        .sent()
        .into_iter()
        .filter(|(to, r)| to.contains("bo") && r.body.starts_with("Reminder"))
        .map(|(_, r)| r.body)
        .next()
        .expect("Bo, who owes the answer, is reminded");
    assert!(
        reminder.to_lowercase().contains("take-back")
            || reminder.to_lowercase().contains("takeback"),
        "the reminder to Bo, who owes an answer to Ann's take-back offer and will be claimed against for it, never names the offer nor how to answer it:\n{reminder}"
    );
}

#[test]
fn an_acceptance_written_for_one_takeback_offer_does_not_accept_a_later_one() {
    // Attack (a crossing the robot allowed): Ann, to move, offers to take
    // back her first move. Bo reads the robot's notice and mails `accept
    // takeback`. Before his mail is read, Ann plays a new move (which
    // withdrew her offer) and offers to take that one back; Bo's
    // acceptance, which names no offer, was applied to the new offer and
    // undid a move Bo never saw. Now, as on the desks (one writer at a
    // time), Ann's move is refused while her offer waits, and Bo's
    // acceptance answers the offer he saw.
    let mut local = Local::new();
    let (game, ann, bo) = ann_and_bo_at_khan(&mut local);
    local.says("ann@player.test", &ann, "move Ng3-f3 #0");
    local.says("bo@player.test", &bo, "move Ae7-f6 #1");
    local.says("ann@player.test", &ann, "offer takeback");
    assert!(replay(&local.record(&game)).first_open_offer().is_some());
    local.says("ann@player.test", &ann, "move Nf3-e3 #2");
    let refused = local
        .answers_to("> move Nf3-e3 #2")
        .pop()
        .expect("an answer")
        .body;
    assert!(
        refused.contains("Refused: your take-back offer waits for the other side's answer"),
        "{refused}"
    );
    assert_eq!(replay(&local.record(&game)).plies(), 2);
    local.says("bo@player.test", &bo, "accept takeback");
    assert_eq!(
        replay(&local.record(&game)).plies(),
        0,
        "Bo's acceptance answers the offer he saw: back to before Ann's first move"
    );
}

/// The file of the robot's store that holds `address`'s player.
fn player_file(local: &Local, address: &str) -> PathBuf {
    std::fs::read_dir(local.root.join("data/robot/players"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            std::fs::read_to_string(p).is_ok_and(|t| t.contains(&format!("address: {address}")))
        })
        .expect("the player's file")
}

#[test]
fn a_damaged_player_file_holds_her_mail_and_loses_nothing() {
    // Attack (real life more than a foe: a disk error, an operator's
    // hand edit, a file a later build wrote): Ann's player file cannot
    // be parsed. The robot read it as "no such player": it welcomed Ann
    // as a newcomer with a fresh token and wrote her file over, so her
    // token no longer worked and her games were gone from `list`. Now a
    // store file that cannot be read or parsed is the operator's to
    // mend: the mail waits unread and unanswered, the run says which
    // file and why, and once the file is mended the same mail is obeyed.
    let mut local = Local::new();
    let (game, ann, _bo) = ann_and_bo_at_khan(&mut local);
    let file = player_file(&local, "ann@player.test");
    let good = std::fs::read_to_string(&file).unwrap();
    let damaged = good.replacen("games:", "games: [", 1);
    std::fs::write(&file, &damaged).unwrap();
    let before = local.sent().len();
    local.deliver("ann@player.test", "list", &format!("token: {ann}"));
    let out = robot_once(&local.config, &[]);
    assert_eq!(
        local.sent().len(),
        before,
        "nothing is mailed on a store the robot cannot read: {:?}",
        local
            .sent()
            .last()
            .map(|(to, r)| (to.clone(), r.body.clone()))
    );
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        damaged,
        "the damaged file is left for the operator, not written over"
    );
    assert_eq!(local.waiting(), 1, "the mail waits, unread");
    assert!(
        !out.status.success(),
        "the run says a mail was not finished"
    );
    let said = stderr(&out);
    assert!(
        said.contains(&file.file_name().unwrap().to_string_lossy().to_string())
            && said.contains("cannot be read"),
        "the run names the file and why: {said}"
    );
    std::fs::write(&file, &good).unwrap();
    local.run();
    assert_eq!(local.waiting(), 0);
    let listed = local
        .answers_to("> list")
        .pop()
        .expect("the answer to Ann's `list`")
        .body;
    assert!(
        listed.contains(&game),
        "Ann's games are hers still: {listed}"
    );
    assert!(!listed.contains("Welcome"), "{listed}");
}

#[test]
fn a_damaged_game_file_holds_the_mails_about_it_and_its_deadlines() {
    // The same for a game's bookkeeping: the robot read a `robot.yaml` it
    // could not parse as "there is no game", refused Bo's move as such
    // and skipped the game's deadlines without a word. Now its deadlines
    // wait and the run says why, Bo's move waits unread, and once the
    // file is mended the move is played.
    let mut local = Local::new();
    let (game, ann, bo) = ann_and_bo_at_khan(&mut local);
    local.says("ann@player.test", &ann, "move Ng3-f3 #0");
    let file = local.root.join("data/games").join(&game).join("robot.yaml");
    let good = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, format!("{good}\tbroken: [\n")).unwrap();
    let before = local.sent().len();
    // A month of Bo's silence: no reminder, no forfeit, and the run says
    // which file stands in the way.
    let later = (last_activity_of(&good) + 30 * 86_400).to_string();
    let out = robot_once(&local.config, &[("YAM_ROBOT_NOW", &later)]);
    assert_eq!(local.sent().len(), before);
    assert!(!out.status.success());
    let said = stderr(&out);
    assert!(
        said.contains("deadlines: waits, undecided: games/")
            && said.contains("robot.yaml cannot be read"),
        "{said}"
    );
    local.deliver(
        "bo@player.test",
        &format!("move {game} Ae7-f6 #1"),
        &format!("token: {bo}"),
    );
    let out = robot_once(&local.config, &[]);
    assert_eq!(
        local.sent().len(),
        before,
        "{:?}",
        local.sent().last().map(|(_, r)| r.body.clone())
    );
    assert_eq!(local.waiting(), 1);
    assert!(!out.status.success());
    let said = stderr(&out);
    assert!(
        said.contains("robot.yaml cannot be read") && said.contains("waits, undecided"),
        "{said}"
    );
    std::fs::write(&file, &good).unwrap();
    local.run();
    assert_eq!(local.waiting(), 0);
    assert_eq!(
        replay(&local.record(&game)).plies(),
        2,
        "Bo's move is played"
    );
}

fn last_activity_of(meta: &str) -> u64 {
    meta.lines()
        .find_map(|l| l.strip_prefix("last_activity: "))
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

impl Local {
    /// `who`, with its token, mails `what`, and the robot reads it with
    /// its clock at `now` (seconds since 1970).
    fn says_at(&mut self, who: &str, token: &str, what: &str, now: &str) {
        self.deliver(who, what, &format!("token: {token}"));
        let out = robot_once(&self.config, &[("YAM_ROBOT_NOW", now)]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
}

#[test]
fn an_answer_owed_after_a_counter_offer_is_counted_from_when_it_fell_due() {
    // Attack (a player who wants the other's clock to look overdue):
    // Bo, to move, offers a draw on day 1; Ann owes the answer. Ann sits
    // on it until day 39 (inside the 40 days), then mails `offer
    // takeback` (a counter-offer, which answers nothing and which the
    // robot takes) and `decline draw`. Now Bo owes the answer to Ann's
    // take-back offer, made on day 39; but the clock's
    // `answer_due_since` never left day 1 (an answer was due all along,
    // only from another party), so the robot counts Bo silent since day
    // 1 and, on day 41, signs a forfeit claim against him after two days
    // of his own silence. What Bo loses: the game, without one reminder
    // of his own in time.
    let mut local = Local::new();
    let (game, ann, bo) = ann_and_bo_at_khan(&mut local);
    local.says("ann@player.test", &ann, "move Ng3-f3 #0");
    let at = days_after_last_activity(&local, &game);
    local.says_at("bo@player.test", &bo, "offer draw", &at(1));
    local.says_at("ann@player.test", &ann, "offer takeback", &at(39));
    local.says_at("ann@player.test", &ann, "decline draw", &at(39));
    let r = replay(&local.record(&game));
    let bo_key = r.to_move_key().unwrap();
    assert_eq!(r.plies(), 1, "setup: nobody moved since Ann's first move");
    let open = r
        .first_open_offer()
        .expect("setup: Ann's take-back offer is open");
    assert!(
        open.back_to.is_some() && open.author != bo_key && r.open_offers().len() == 1,
        "setup: the only open offer is Ann's take-back (Bo's draw is declined)"
    );
    assert_eq!(
        r.owing(),
        vec![bo_key],
        "setup: Bo owes the answer to Ann's take-back offer of day 39"
    );
    assert!(r.claims().is_empty(), "setup: no claim yet");
    let out = robot_once(&local.config, &[("YAM_ROBOT_NOW", &at(41))]);
    assert!(out.status.success(), "{}", stderr(&out));
    let r = replay(&local.record(&game));
    assert!(
        r.claims().is_empty(),
        "Bo's answer fell due on day 39 (Ann's take-back offer became the oldest when she declined his draw); on day 41 the robot claimed a forfeit against him:\n{}",
        stderr(&out)
    );
}

#[test]
fn the_days_the_mover_sits_on_an_offer_made_to_him_count_against_his_move() {
    // Attack (a player who owes a move and wants to pause his clock):
    // Ann moves and offers a draw. Bo now owes the answer and then his
    // move. He sits on both for 39 days, then mails `decline draw`. The
    // clock moves his move's silence on by the days the offer waited,
    // as if Bo had been the one waiting: "less the days an offer *of
    // the mover* waited for its answer" (docs/robot.md) became "of
    // anyone". So on day 41 his move is counted 2 days old, and Bo, who
    // has not written a move for 41 days, is not claimed against; he may
    // stay silent until day 79. What Ann loses: the forfeit she is owed,
    // for offering a draw with her move.
    let mut local = Local::new();
    let (game, ann, bo) = ann_and_bo_at_khan(&mut local);
    local.says("ann@player.test", &ann, "move Ng3-f3 #0");
    let at = days_after_last_activity(&local, &game);
    local.says_at("ann@player.test", &ann, "offer draw", &at(0));
    local.says_at("bo@player.test", &bo, "decline draw", &at(39));
    claimed_after_answered_offer(
        &local,
        &game,
        1,
        &at(41),
        "Bo has owed his move (and, for 39 of those days, his answer to Ann's offer) for 41 days, yet no forfeit was claimed: his own silence on her offer was counted as waiting",
    );
}

#[test]
fn a_robot_yaml_of_an_earlier_build_keeps_counting_a_move_from_the_last_activity_across_an_offer() {
    // Attack (an old store): a game the robot kept before the silence
    // fields existed; its `robot.yaml` has only `last_activity`. Bo, to
    // move since day 0, offers a draw on day 35 and Ann declines it the
    // same day. The offer step wrote `answer_due_since` but no
    // `move_due_since`, so at the answer the move's clock falls back to
    // "the last change", which is now the offer itself: Bo's 35 days are
    // forgotten. On day 41 he has not moved for 41 days and is not
    // claimed against (not before day 75).
    let mut local = Local::new();
    let (game, ann, bo) = ann_and_bo_at_khan(&mut local);
    local.says("ann@player.test", &ann, "move Ng3-f3 #0");
    let at = days_after_last_activity(&local, &game);
    without_silence_fields(&local.root.join("data/games").join(&game).join("robot.yaml"));
    local.says_at("bo@player.test", &bo, "offer draw", &at(35));
    local.says_at("ann@player.test", &ann, "decline draw", &at(35));
    claimed_after_answered_offer(
        &local,
        &game,
        1,
        &at(41),
        "Bo has owed his move since day 0 (the last activity of the old store); on day 41 no forfeit was claimed: one draw offer reset his clock",
    );
}

#[test]
fn the_first_mover_cannot_reset_her_clock_by_an_offer_before_her_first_move() {
    // Attack (a player who owes a move and wants to reset her clock):
    // the game starts when Bo joins; the robot writes no
    // `move_due_since` then (only the first turn does), so until the
    // first move the clock falls back to the last activity, as for a
    // store of an earlier build. Ann, to move first, never moves; on day
    // 35 she offers a draw and Bo declines it at once. At his answer the
    // move's clock falls back to "the last activity", by then Ann's
    // offer: her 35 days are forgotten, and on day 41 no forfeit is
    // claimed (not before day 75).
    let mut local = Local::new();
    let (game, ann, bo) = ann_and_bo_at_khan(&mut local);
    let start = last_activity(&local, &game);
    let at = |days: u64| (start + days * 86_400 + 60).to_string();
    local.says_at("ann@player.test", &ann, "offer draw", &at(35));
    local.says_at("bo@player.test", &bo, "decline draw", &at(35));
    claimed_after_answered_offer(
        &local,
        &game,
        0,
        &at(41),
        "Ann has owed her first move since the game started 41 days ago; one draw offer reset her clock",
    );
}

/// `desk` runs `yam ARGS` with its clock (`YAM_NOW`) at `now`.
fn desk_at(desk: &Desk, now: &str, args: &[&str]) -> std::process::Output {
    yam_tests::yam!()
        .args(args)
        .arg("--data-dir")
        .arg(&desk.data)
        .env("YAM_NOW", now)
        .output()
        .unwrap()
}

/// `desk` reads every mail waiting, with its clock at `now`.
fn desk_reads_at(desk: &Desk, now: &str) {
    let mut files: Vec<PathBuf> = std::fs::read_dir(&desk.inbox)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    for file in files {
        let out = desk_at(desk, now, &["read", "--eml", file.to_str().unwrap()]);
        assert!(out.status.success(), "{}", stderr(&out));
        std::fs::remove_file(&file).unwrap();
    }
}

#[test]
fn in_a_witnessed_game_offers_of_the_player_who_owes_a_move_do_not_restart_the_robots_clock() {
    // Attack (a player who owes a move, in a game the robot witnesses):
    // every 35 days he offers a draw on his move and his opponent's desk
    // declines it. The desks count his silence from his latest turn
    // (SilenceClock), but the witness counts from its last activity,
    // which each offer and each decline moves. So the robot never tells
    // the waiting player that a forfeit may be claimed (though her own
    // desk would accept the claim), and it keeps telling the staller
    // that "after 40 days of silence your opponent may claim a
    // forfeit", a deadline it never reaches itself. What the waiting
    // player loses: the referee's notice she relies on.
    let mut t = Referee::new();
    let game = "khan-ref-stall";
    open_refereed(&mut t, game, &["--game-type", "khan", "--ruleset", "basic"]);
    play_refereed(&mut t, game, 1);
    let ann_moves = t.ann.status(game) == "YOU";
    let (staller, waiting) = if ann_moves {
        (&t.ann, &t.bo)
    } else {
        (&t.bo, &t.ann)
    };
    let (staller_data, waiting_data) = (staller.data.clone(), waiting.data.clone());
    let (staller_inbox, waiting_inbox) = (staller.inbox.clone(), waiting.inbox.clone());
    let (staller_out, waiting_out) = (staller.outbox.clone(), waiting.outbox.clone());
    let (staller_address, waiting_address) = (staller.address.clone(), waiting.address.clone());
    let staller = Desk {
        address: staller_address,
        data: staller_data,
        outbox: staller_out,
        inbox: staller_inbox,
    };
    let waiting = Desk {
        address: waiting_address.clone(),
        data: waiting_data,
        outbox: waiting_out,
        inbox: waiting_inbox,
    };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let at = move |days: u64| (now + days * 86_400).to_string();
    let robot_at = |t: &Referee, days: u64| {
        let out = robot_once(&t.local.config, &[("YAM_ROBOT_NOW", &at(days))]);
        assert!(out.status.success(), "{}", stderr(&out));
        stderr(&out)
    };
    for day in [35, 70] {
        let out = desk_at(&staller, &at(day), &["draw", "offer", game]);
        assert!(out.status.success(), "{}", stderr(&out));
        t.route();
        let log = robot_at(&t, day);
        assert!(log.contains(&format!("witnessed {game}")), "{log}");
        desk_reads_at(&waiting, &at(day));
        let out = desk_at(&waiting, &at(day), &["draw", "decline", game]);
        assert!(out.status.success(), "{}", stderr(&out));
        t.route();
        let log = robot_at(&t, day);
        assert!(log.contains(&format!("witnessed {game}")), "{log}");
        desk_reads_at(&staller, &at(day));
    }
    let log = robot_at(&t, 76);
    let told = t.local.sent().iter().any(|(to, r)| {
        to.contains(&waiting_address) && r.body.contains(&format!("yam forfeit {game}"))
    });
    // The waiting player's own desk accepts the claim on day 76.
    let claim = desk_at(&waiting, &at(76), &["forfeit", game]);
    assert!(
        claim.status.success(),
        "setup: the waiting desk's own clock allows the claim: {}",
        stderr(&claim)
    );
    assert!(
        told,
        "the staller has owed his move for 76 days (the desk accepts the claim), but the robot, counting from the last offer or decline, never told the waiting player that a forfeit may be claimed:\n{log}"
    );
}

#[test]
fn a_reminder_already_sent_for_a_move_is_not_sent_again_after_an_offer_and_its_answer() {
    // Attack (reminders): Bo, to move, is reminded on day 14. On day 20
    // he offers a draw and Ann declines it at once. Every commit clears
    // `reminders_sent`, but the move's clock did not start again (the
    // offer and answer do not restart it): so on day 21 the robot sends
    // the day-14 reminder a second time, and it does so after every
    // offer; each offer-and-decline re-arms a reminder of a silence
    // that never ended. (Low harm: the noise goes to the staller; but
    // the list of reminders sent no longer says which were sent.)
    let mut local = Local::new();
    let (game, ann, bo) = ann_and_bo_at_khan(&mut local);
    local.says("ann@player.test", &ann, "move Ng3-f3 #0");
    let at = days_after_last_activity(&local, &game);
    let reminders = |local: &Local| {
        local
            .sent()
            .into_iter()
            .filter(|(to, r)| {
                to.contains("bo") && r.body.starts_with("Reminder: it has been your move")
            })
            .count()
    };
    let out = robot_once(&local.config, &[("YAM_ROBOT_NOW", &at(14))]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(reminders(&local), 1, "setup: Bo is reminded on day 14");
    local.says_at("bo@player.test", &bo, "offer draw", &at(20));
    local.says_at("ann@player.test", &ann, "decline draw", &at(20));
    assert_eq!(
        replay(&local.record(&game)).plies(),
        1,
        "setup: Bo never moved"
    );
    let out = robot_once(&local.config, &[("YAM_ROBOT_NOW", &at(21))]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        reminders(&local),
        1,
        "the day-14 reminder of the same silence was sent again after Bo's offer and Ann's decline:\n{}",
        stderr(&out)
    );
}

#[test]
fn a_damaged_secret_holds_the_move_and_names_no_path_to_the_player() {
    // Real life again, in the robot's secrets: Bo's custodial seed cannot
    // be read. The robot answered his move "Refused: <the seed's path>:
    // ..." (the failure, with the robot's own paths, mailed to whoever
    // sent the move) and took the mail as dealt with: Bo had to send the
    // move again once the operator mended it. Now the move waits unread,
    // the run names the failure, and once the seed is back the same mail
    // is played.
    let mut local = Local::new();
    let (game, ann, bo) = ann_and_bo_at_khan(&mut local);
    local.says("ann@player.test", &ann, "move Ng3-f3 #0");
    let identity = std::fs::read_to_string(player_file(&local, "bo@player.test"))
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("identity: ").map(|v| v.trim().to_owned()))
        .expect("Bo's identity");
    let seed = local
        .root
        .join("data/secrets/identities")
        .join(format!("{identity}.seed"));
    let good = std::fs::read(&seed).unwrap();
    std::fs::write(&seed, "not a seed\n").unwrap();
    let before = local.sent().len();
    local.deliver(
        "bo@player.test",
        &format!("move {game} Ae7-f6 #1"),
        &format!("token: {bo}"),
    );
    let out = robot_once(&local.config, &[]);
    let new: Vec<String> = local
        .sent()
        .into_iter()
        .map(|(_, r)| r.body)
        .filter(|b| b.contains("Ae7-f6") || b.contains("Refused"))
        .collect();
    assert_eq!(
        local.sent().len(),
        before,
        "nothing mailed: {new:?}\n{}",
        stderr(&out)
    );
    assert_eq!(local.waiting(), 1, "Bo's move waits");
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("secrets cannot be read"),
        "{}",
        stderr(&out)
    );
    std::fs::write(&seed, good).unwrap();
    local.run();
    assert_eq!(local.waiting(), 0);
    assert_eq!(
        replay(&local.record(&game)).plies(),
        2,
        "Bo's move is played"
    );
}

#[test]
fn a_staller_cannot_hold_off_his_forfeit_by_flooding_the_robot_in_his_own_name() {
    // Attack (the player who owes a move): the robot claims no forfeit
    // against a player whose mail still waits in the mailbox, and mail
    // beyond a look's budget of unauthenticated mail waits for the next
    // look. Bo, silent for 41 days, mails the robot from his own address
    // more mails without his token than a look reads (no token needed),
    // and keeps doing so: every look found "his" mail waiting and held
    // his forfeit, for as long as he kept sending. A mail without the
    // token or a signed record can never be a step of the game (it is
    // refused unread), so none holds a forfeit.
    let mut local = Local::new();
    local.limits("  max_mail_bytes: 1048576\n  per_cycle: 5\n");
    let (ann, _bo, game) = khan_between_ann_and_bo(&mut local);
    local.says("ann@player.test", &ann, "move Ng3-f3 #0");
    let last = last_activity(&local, &game);
    for i in 0..20 {
        local.deliver("bo@player.test", "status", &format!("no token {i}"));
    }
    let out = robot_once(
        &local.config,
        &[("YAM_ROBOT_NOW", &(last + 41 * 86_400).to_string())],
    );
    assert!(local.waiting() > 0, "setup: the flood outlasts one look");
    let log = stderr(&out);
    assert!(
        log.contains("forfeit claimed against bo@player.test"),
        "Bo, silent 41 days, held his forfeit off with mails he could send without end:\n{log}"
    );
}

#[test]
fn an_unreadable_plan_holds_its_game_and_mending_it_loses_no_later_move() {
    // Real life: the robot is killed (a power cut) after it wrote the
    // files of Ann's move but before it marked the plan applied; then
    // the plan file `robot/journal/KEY.plan`, the commit point, is
    // damaged (a disk error, a bad restore). The robot says at each run
    // that it cannot read the plan, but, not knowing what the plan
    // holds, holds nothing: Bo's next move in the same game is decided
    // and applied. When the operator mends the plan (as the log asks),
    // the plan is carried out from "planned": its whole files are written
    // again, the record as it stood after Ann's move, and Bo's move,
    // already confirmed to him, is gone from the record. A plan that
    // cannot be read must hold back what it may write (at least its
    // game; not knowing which, everything), as a blocked plan does.
    let mut local = Local::new();
    let (game, ann, bo) = ann_and_bo_at_khan(&mut local);
    local.deliver(
        "ann@player.test",
        "move Ng3-f3 #0",
        &format!("token: {ann}"),
    );
    let killed = robot_once(&local.config, &[("YAM_ROBOT_KILL_AT", "after-apply")]);
    assert!(!killed.status.success(), "setup: the robot was killed");
    let journal = local.root.join("data/robot/journal");
    let plans: Vec<PathBuf> = std::fs::read_dir(&journal)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "plan"))
        .collect();
    assert_eq!(plans.len(), 1, "setup: Ann's plan is not done: {plans:?}");
    let plan = plans[0].clone();
    assert!(
        !plan.with_extension("applied").exists(),
        "setup: the plan is not marked applied"
    );
    assert_eq!(
        replay(&local.record(&game)).plies(),
        1,
        "setup: Ann's move is written"
    );
    let good = std::fs::read_to_string(&plan).unwrap();
    std::fs::write(&plan, &good[..good.len() / 2]).unwrap();
    // Bo moves in the same game while the plan cannot be read.
    local.deliver(
        "bo@player.test",
        &format!("move {game} Ae7-f6 #1"),
        &format!("token: {bo}"),
    );
    let out = robot_once(&local.config, &[]);
    let said = stderr(&out);
    assert!(said.contains("cannot be read"), "setup: {said}");
    let bo_applied = replay(&local.record(&game)).plies() == 2;
    // The operator mends the plan; the robot runs on.
    std::fs::write(&plan, &good).unwrap();
    robot_once(&local.config, &[]);
    robot_once(&local.config, &[]);
    assert_eq!(local.waiting(), 0, "every mail is dealt with");
    assert_eq!(
        replay(&local.record(&game)).plies(),
        2,
        "Bo's move (applied while the plan could not be read: {bo_applied}) is in the record"
    );
}

#[test]
fn a_forged_sender_with_a_trailing_unicode_space_cannot_take_a_newcomers_player_file() {
    // Attack (a stranger, before Ann's first mail): a forged
    // `From: <ann@player.test\u{A0}>` (a NO-BREAK SPACE after the
    // address; U+2028 or U+3000 do the same). The sender's address is
    // kept with the space (it is no control character), but a player's
    // file is named by the address trimmed (`auth::address_key`) and
    // `Player::new` trims it too: the robot writes Ann's own player file,
    // `address: ann@player.test`, with a token it mails to the spaced
    // address, which is not Ann's. When Ann writes for the first time
    // the file is there: she is no newcomer, her mail carries no token,
    // and she is refused. She never receives a token, and no mail she
    // can send registers her: what she loses is the robot, for good.
    let mut local = Local::new();
    local.deliver_raw(
        "From: <ann@player.test\u{A0}>\r\nTo: robot@yam.test\r\nMessage-ID: <forged@evil.test>\r\nSubject: help\r\n\r\nhelp\r\n"
            .as_bytes(),
    );
    local.run();
    local.deliver("ann@player.test", "help", "help");
    local.run();
    let to_ann: Vec<String> = local
        .sent()
        .into_iter()
        .filter(|(to, _)| to.contains("ann@player.test"))
        .map(|(to, r)| format!("{to}\n{}", r.body))
        .collect();
    assert!(
        local
            .sent()
            .into_iter()
            .any(|(to, r)| to.trim_end() == "To: ann@player.test" && token_in(&r.body).is_some()),
        "Ann, writing from her own address for the first time, is welcomed with a token: {to_ann:#?}"
    );
}

/// Attack (a stranger, before Ann's first mail), the twin of the trailing
/// space: a forged `From: <ann@xn--layer-wr33a.test>`, an ASCII domain
/// whose first label is the punycode of `\u{ff50}layer` (a fullwidth `p`).
/// UTS 46 refuses it as a whole (its label is not in mapped form), and
/// `mail::address::normal` decodes the label alone and keeps it as it
/// decodes: the sender is `ann@\u{ff50}layer.test`, a mailable address
/// that is not Ann's. But a player's file is named by the normal form of
/// that (`auth::address_key` normalizes again), `ann@player.test`: the
/// robot writes Ann's own player file with a token it mails to the
/// forger's address. When Ann writes for the first time she is no
/// newcomer, her mail carries no token, and she is refused: she never
/// receives a token, and no mail she can send registers her.
#[test]
fn a_forged_sender_at_a_punycode_label_of_a_mapped_letter_cannot_take_a_newcomers_player_file() {
    let mut local = Local::new();
    local.deliver_raw(
        "From: <ann@xn--layer-wr33a.test>\r\nTo: robot@yam.test\r\nMessage-ID: <forged@evil.test>\r\nSubject: help\r\n\r\nhelp\r\n"
            .as_bytes(),
    );
    local.run();
    local.deliver("ann@player.test", "help", "help");
    let log = stderr(&local.run());
    let sent: Vec<String> = local
        .sent()
        .into_iter()
        .map(|(to, r)| format!("{to}\n{}", r.body.lines().next().unwrap_or_default()))
        .collect();
    assert!(
        local
            .sent()
            .into_iter()
            .any(|(to, r)| to.trim_end() == "To: ann@player.test" && token_in(&r.body).is_some()),
        "Ann, writing from her own address for the first time, is welcomed with a token: {sent:#?}\nlog: {log}"
    );
}

#[test]
fn a_forged_mail_that_copies_a_players_message_id_does_not_swallow_her_move() {
    // Attack (the opponent, copied on Ann's mails: a player who CCs her
    // moves, a list): the robot knows a mail delivered twice by its
    // Message-ID and sender, and skips a mail found done. Bo sees the
    // Message-ID Ann's client gave her move, and gets a forged mail with
    // the same Message-ID and From to the robot first (no token: it is
    // refused). When Ann's real move arrives it was found "done" and
    // skipped without a word: her move never played, and forty days on
    // Bo could claim a forfeit. A mail is the same mail only if its text
    // is the same too.
    let mut local = Local::new();
    let (game, ann, _bo) = ann_and_bo_at_khan(&mut local);
    let forged = format!(
        "From: ann@player.test\r\nTo: robot@yam.test\r\nMessage-ID: <ann-move-1@player.test>\r\nSubject: resign {game}\r\n\r\nresign\r\n"
    );
    local.deliver_raw(forged.as_bytes());
    local.run();
    let real = format!(
        "From: ann@player.test\r\nTo: robot@yam.test\r\nMessage-ID: <ann-move-1@player.test>\r\nSubject: move {game} Ng3-f3 #0\r\n\r\ntoken: {ann}\r\n"
    );
    local.deliver_raw(real.as_bytes());
    local.run();
    assert_eq!(local.waiting(), 0);
    assert_eq!(
        replay(&local.record(&game)).plies(),
        1,
        "Ann's move, sent under a Message-ID a forger used first, is played"
    );
}

/// Real life (a list or gateway that adds a footer, delivering a late
/// second copy): the journal keys a mail by its text too, so a copy whose
/// text was changed was another mail, decided again. Ann's move written
/// without its ply, copied late with a footer after the turn came back
/// and the piece stood where it had, was legal again and played twice.
/// Her token authenticated the first copy, so its Message-ID and sender
/// are marked done with it: the changed copy is the same mail.
#[test]
fn a_late_copy_of_an_authenticated_move_whose_text_a_gateway_changed_is_not_played_again() {
    let mut local = Local::new();
    let (game, ann, bo) = ann_and_bo_at_khan(&mut local);
    let first = format!(
        "From: ann@player.test\r\nTo: robot@yam.test\r\nMessage-ID: <ann-move-g3@player.test>\r\nSubject: move {game} Ng3-f3\r\n\r\ntoken: {ann}\r\n"
    );
    local.deliver_raw(first.as_bytes());
    local.run();
    local.says("bo@player.test", &bo, "move Ae7-f6 #1");
    local.says("ann@player.test", &ann, "move Nf3-g3 #2");
    local.says("bo@player.test", &bo, "move Af6-e7 #3");
    assert_eq!(
        replay(&local.record(&game)).plies(),
        4,
        "setup: the turn came back"
    );
    let copy = format!("{first}\r\n-- \r\nThis message passed through the club's gateway.\r\n");
    local.deliver_raw(copy.as_bytes());
    let log = stderr(&local.run());
    assert_eq!(local.waiting(), 0, "{log}");
    assert_eq!(
        replay(&local.record(&game)).plies(),
        4,
        "Ann's move, copied again with a footer, was played twice:\n{log}"
    );
    // A forger's copy of a Message-ID still swallows nothing of hers
    // (`a_forged_mail_that_copies_a_players_message_id_does_not_swallow_her_move`):
    // only a mail her token authenticated marks its Message-ID done.
}

#[test]
fn a_plan_an_earlier_build_left_under_its_key_is_carried_on_not_decided_again() {
    // What users already have: a robot of an earlier build, which keyed
    // a mail by its Message-ID and sender alone, was killed after it wrote
    // the files of Ann's move; the new build keys the mail by its text
    // too. Decided again under the new key, the move would be refused as
    // stale (the record holds it already) and Ann told so; the plan left
    // under the old key is carried on instead, its answers sent once.
    let mut local = Local::new();
    let (game, ann, _bo) = ann_and_bo_at_khan(&mut local);
    local.deliver_raw(
        format!(
            "From: ann@player.test\r\nTo: robot@yam.test\r\nMessage-ID: <ann-old-1@player.test>\r\nSubject: move {game} Ng3-f3 #0\r\n\r\ntoken: {ann}\r\n"
        )
        .as_bytes(),
    );
    let killed = robot_once(&local.config, &[("YAM_ROBOT_KILL_AT", "after-apply")]);
    assert!(!killed.status.success(), "setup: killed");
    assert_eq!(replay(&local.record(&game)).plies(), 1, "setup: written");
    // The journal as the earlier build would have left it.
    let old =
        yam_referee::fair_play::hash::Hash32::of(b"id ann-old-1@player.test\nfrom ann@player.test")
            .to_hex()[..24]
            .to_owned();
    let journal = local.root.join("data/robot/journal");
    let mut renamed = 0;
    for entry in std::fs::read_dir(&journal).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        // The mail's plan and its markers (`KEY.plan`, `KEY.applied`, ...).
        if let Some((_, rest)) = name.split_once('.')
            && (rest == "plan" || rest == "applied" || rest.starts_with("sent."))
        {
            std::fs::rename(entry.path(), journal.join(format!("{old}.{rest}"))).unwrap();
            renamed += 1;
        }
    }
    assert!(renamed >= 1, "setup: the plan moved under the old key");
    local.run();
    assert_eq!(local.waiting(), 0);
    assert_eq!(replay(&local.record(&game)).plies(), 1);
    let answers = local.answers_to("> move");
    assert!(
        answers.iter().all(|a| !a.body.contains("Refused")),
        "the move was decided again and refused: {:?}",
        answers.iter().map(|a| &a.body).collect::<Vec<_>>()
    );
    assert!(
        journal.join("done").join(format!("{old}.done")).exists(),
        "done under the old key"
    );
}

/// The meta of a witnessed game in the robot's store.
fn witnessed_meta(t: &Referee, game: &str) -> String {
    std::fs::read_to_string(
        t.local
            .root
            .join("data/games")
            .join(game)
            .join("robot.yaml"),
    )
    .unwrap()
}

/// A desk's public key, hex, read from its signed challenge or acceptance
/// in a record: the key of the event `n` (0: the challenger).
fn author_hex(record: &str, n: usize) -> String {
    let replay = replay(record);
    hex::encode(replay.events().all()[n].event.author.as_bytes())
}

/// Attack (the invited player, with his own key): Bo gets Ann's challenge
/// (To: him, Cc: the robot) and mails its record to the robot from his own
/// address, naming the robot as referee, before Ann's copy arrives. The
/// robot took the first sight of the game for the challenger's own mail
/// and bound Ann's key to Bo's address: Ann's own copy was then refused
/// ("an address not in the game"), Bo's acceptance was taken as a relay
/// of "the other player's" events, every later mail of Ann's was refused
/// as signed "by the key of the other player", and the confirmation of
/// Ann's key went to Bo, who could make it his.
/// Ann challenges Bo to a basic Khan game refereed by the robot, seats
/// drawn; the desks exchange cards, and her challenge waits in her outbox,
/// not yet routed (to Bo, copied to the robot).
fn challenge_held_back(t: &mut Referee, game: &str) {
    t.ann.yam(&[
        "challenge",
        "bo@player.test",
        "--seats",
        "drawn",
        "--id",
        game,
        "--referee",
        "robot@yam.test",
        "--game-type",
        "khan",
        "--ruleset",
        "basic",
    ]);
    assert_eq!(t.route(), 0);
    assert!(t.bo.read().contains("my card is sent in answer"));
    assert_eq!(t.route(), 0);
    assert!(t.ann.read().contains("the waiting challenge"));
}

#[test]
fn a_challenge_relayed_first_by_the_invited_player_does_not_bind_the_challengers_key_to_him() {
    let mut t = Referee::new();
    let game = "khan-ref-relay";
    challenge_held_back(&mut t, game);
    // Ann's challenge is in her outbox, to Bo with a copy to the robot. Bo
    // has it as soon as it is delivered to him; his relay reaches the
    // robot before the copy.
    let challenge = t.ann.record(game);
    let ann_key = author_hex(&challenge, 0);
    // He keeps the header of her mail with her card (naming her address),
    // as a client that forwards headers would.
    t.local.deliver_raw(&carded_turn_mail(
        "bo@player.test",
        game,
        &challenge,
        "relay.1@player.test",
        false,
        Some(t.ann.card_naming("ann@player.test")),
    ));
    let log = t.robot();
    assert!(
        log.contains(&format!("witnessed {game}: 1 new event")),
        "{log}"
    );
    // The game goes on as the desks play it: Bo accepts, Ann's desk
    // reveals the seat draw, and they play.
    assert!(t.bo.read().contains("refereed by robot@yam.test"));
    t.bo.yam(&["accept", game]);
    let accepted = t.robot();
    t.ann.read();
    let revealed = t.robot();
    t.bo.read();
    let mut logs = vec![log, accepted, revealed];
    for n in 0..4 {
        let mover = if t.ann.status(game) == "YOU" {
            &t.ann
        } else {
            &t.bo
        };
        mover.yam(&["move", game, "--auto", "random", "--seed", &n.to_string()]);
        logs.push(t.robot());
        t.ann.read();
        t.bo.read();
    }
    let logs = logs.join("\n");
    let meta = witnessed_meta(&t, game);
    // Ann's key speaks for Ann's address, never for Bo's.
    assert!(
        !meta.contains(&format!("key: {ann_key}\n  address: bo@player.test")),
        "Ann's key is bound to Bo's address:\n{meta}\n{logs}"
    );
    // Ann's own mails of her game are not refused.
    assert!(
        !logs
            .lines()
            .any(|l| l.contains("refused") && l.contains("from ann@player.test")),
        "{logs}"
    );
    // Bo is never asked to confirm Ann's key as his.
    let ann_fp = {
        let bytes: [u8; 32] = hex::decode(&ann_key).unwrap().try_into().unwrap();
        yam_referee::fair_play::sign::PublicKey::from_bytes(&bytes)
            .unwrap()
            .fingerprint()
            .to_string()
    };
    let to_bo: Vec<Received> = t
        .local
        .sent()
        .into_iter()
        .filter(|(to, _)| to.contains("bo@player.test"))
        .map(|(_, r)| r)
        .collect();
    assert!(
        to_bo.iter().all(|r| !r.body.contains(&ann_fp)),
        "Bo is asked to confirm Ann's key: {to_bo:?}"
    );
    // The robot's copy is the players' record.
    assert_same_records(&t, game);
}

/// What users already have: a player on an earlier Yam, whose mails carry
/// no card (or a gateway that drops `X-Yam-Card`). Her game is witnessed,
/// every event of it, and binds nobody (a mail's From proves no key); once
/// she mails the robot her card and confirms it (`yam identity send`), her
/// key is known for her address and her next mail of the game binds her.
#[test]
fn a_game_mailed_without_cards_binds_nobody_until_the_players_key_is_known() {
    let mut t = Referee::new();
    t.without_cards = true;
    let game = "khan-ref-earlier";
    open_refereed_unconfirmed(&mut t, game, &["--game-type", "khan", "--ruleset", "basic"]);
    let meta = witnessed_meta(&t, game);
    assert!(!meta.contains("address:"), "{meta}");
    assert!(
        t.local.sent().is_empty(),
        "no confirmation for a key no card claimed: {:?}",
        t.local.sent()
    );
    play_refereed(&mut t, game, 2);
    assert_same_records(&t, game);
    // Ann mails her card and confirms the code.
    t.ann.yam(&["identity", "send", "robot@yam.test"]);
    let log = t.robot();
    assert!(
        log.contains("claims ann@player.test: a confirmation is mailed to ann@player.test"),
        "{log}"
    );
    confirm_keys(&mut t);
    // Her next mail of the game, still without a card, binds her.
    let mut log = String::new();
    for n in 0..2 {
        let mover = if t.ann.status(game) == "YOU" {
            &t.ann
        } else {
            &t.bo
        };
        mover.yam(&["move", game, "--auto", "random", "--seed", &n.to_string()]);
        log.push_str(&t.robot());
        t.ann.read();
        t.bo.read();
    }
    let ann_key = author_hex(&t.ann.record(game), 0);
    let meta = witnessed_meta(&t, game);
    assert!(
        meta.contains(&format!("key: {ann_key}\n  address: ann@player.test")),
        "{meta}\n{log}"
    );
    assert!(!meta.contains("address: bo@player.test"), "{meta}\n{log}");
    assert_same_records(&t, game);
    // The game is in her register.
    let token = t.local.register("ann@player.test");
    t.local
        .deliver("ann@player.test", "list", &format!("token: {token}"));
    t.robot();
    let answer = last_to(&t.local, "ann@player.test", "> list");
    assert!(answer.body.contains(game), "{}", answer.body);
}

/// Attack (a stranger who wants the robot to mail third parties): a record
/// that does not verify (here a real challenge with one signature
/// character changed) mailed under a forged From. The refusal of a record
/// went to the From address by `reply` alone, past the limits every other
/// answer to an unauthenticated mail keeps (one refusal a day to an
/// address, `answers_per_hour` in all): only the count of records per
/// sender and hour held it, so the robot mailed a victim a refusal for
/// each of ten forged mails an hour, and any number of victims as many.
#[test]
fn refusals_of_forged_records_are_bounded_like_every_answer_to_unauthenticated_mail() {
    let mut t = Referee::new();
    // The defaults (ten mails a sender an hour), five answers an hour.
    t.local
        .limits("  max_mail_bytes: 1048576\n  answers_per_hour: 5\n");
    let game = "khan-ref-backscatter";
    t.ann.yam(&[
        "challenge",
        "bo@player.test",
        "--id",
        game,
        "--referee",
        "robot@yam.test",
        "--game-type",
        "khan",
        "--ruleset",
        "basic",
    ]);
    assert_eq!(t.route(), 0);
    t.bo.read();
    assert_eq!(t.route(), 0);
    assert!(t.ann.read().contains("the waiting challenge"));
    let forged = forge(&t.ann.record(game));
    // Eight forged mails in Carol's name, who plays nothing, and one in
    // each of ten other strangers' names.
    for i in 0..8 {
        t.local.deliver_raw(&turn_mail(
            "carol@victim.test",
            game,
            &forged,
            &format!("carol.{i}@victim.test"),
            false,
        ));
    }
    for i in 0..10 {
        t.local.deliver_raw(&turn_mail(
            &format!("victim{i}@victim.test"),
            game,
            &forged,
            &format!("v.{i}@victim.test"),
            false,
        ));
    }
    let log = stderr(&t.local.run());
    assert!(log.contains("does not verify"), "{log}");
    let sent = t.local.sent();
    let to_carol = sent
        .iter()
        .filter(|(to, _)| to.contains("carol@victim.test"))
        .count();
    assert!(
        to_carol <= 1,
        "{to_carol} refusals mailed to Carol in one hour:\n{log}"
    );
    assert!(
        sent.len() <= 5,
        "{} refusals mailed in one hour, more than answers_per_hour (5):\n{log}",
        sent.len()
    );
    // Within the limits a refusal still goes out: Carol is told once, and
    // the hour's answers are spent, not withheld.
    assert_eq!(to_carol, 1, "{log}");
    assert_eq!(sent.len(), 5, "{log}");
}

/// A copy of `desk`'s data (its keys, chains and games as they stand),
/// mailing into an outbox of its own: the same player, a second machine.
fn desk_copy(desk: &Desk, root: &std::path::Path, name: &str) -> Desk {
    let data = root.join(format!("{name}-desk"));
    let outbox = root.join(format!("{name}-out"));
    let inbox = root.join(format!("{name}-in"));
    for d in [&outbox, &inbox] {
        std::fs::create_dir_all(d).unwrap();
    }
    let copied = std::process::Command::new("cp")
        .arg("-a")
        .arg(&desk.data)
        .arg(&data)
        .status()
        .unwrap();
    assert!(copied.success());
    let config = std::fs::read_to_string(data.join("config.yaml")).unwrap();
    let config = config.replace(
        &desk.outbox.display().to_string(),
        &outbox.display().to_string(),
    );
    std::fs::write(data.join("config.yaml"), config).unwrap();
    Desk {
        address: desk.address.clone(),
        data,
        outbox,
        inbox,
    }
}

/// Attack (a player with his own key): the player to move signs two
/// different turns at the same place, mails one to the robot alone and
/// the other to his opponent (copied to the robot, where it now arrives
/// second). The robot's copy holds the first; every later mail of the
/// honest player carries the second, signed by him, and is refused as "a
/// forked history", so the robot's copy stops at his hidden turn and its
/// clock runs against her while she plays on. Forty days on, the robot
/// tells him that a forfeit may be claimed against her, whose signed
/// turns of those very days it holds (refused), and his claim on the
/// hidden turn closes its copy: the witness's record says she was
/// forfeited in a game she never stopped playing.
#[test]
fn a_turn_signed_twice_by_the_mover_does_not_let_the_robot_call_his_opponent_silent() {
    let mut t = Referee::new();
    let game = "khan-ref-twice";
    open_refereed(&mut t, game, &["--game-type", "khan", "--ruleset", "basic"]);
    play_refereed(&mut t, game, 2);
    let bo_moves = t.bo.status(game) == "YOU";
    let (cheat_address, honest_address) = if bo_moves {
        (t.bo.address.clone(), t.ann.address.clone())
    } else {
        (t.ann.address.clone(), t.bo.address.clone())
    };
    let root = t.local.root.clone();
    let cheat = if bo_moves { &t.bo } else { &t.ann };
    // The hidden turn, from a copy of his desk, mailed to the robot alone.
    let second = desk_copy(cheat, &root, "cheat2");
    second.yam(&["move", game, "--auto", "random", "--seed", "101"]);
    let hidden = second.record(game);
    let mut to_robot_alone = 0;
    for e in std::fs::read_dir(&second.outbox).unwrap().flatten() {
        if e.path().extension().is_some_and(|x| x == "eml") {
            t.local.deliver_raw(&std::fs::read(e.path()).unwrap());
            to_robot_alone += 1;
        }
    }
    assert!(to_robot_alone > 0);
    let log = stderr(&t.local.run());
    assert!(log.contains(&format!("witnessed {game}: ")), "{log}");
    // The turn he plays with his opponent, another one at the same place.
    let cheat = if bo_moves { &t.bo } else { &t.ann };
    cheat.yam(&["move", game, "--auto", "random", "--seed", "102"]);
    assert_ne!(cheat.record(game), hidden, "two different turns");
    let mut logs = vec![t.robot()];
    t.ann.read();
    t.bo.read();
    // They play on for a few turns, every mail copied to the robot.
    for n in 0..4 {
        let mover = if t.ann.status(game) == "YOU" {
            &t.ann
        } else if t.bo.status(game) == "YOU" {
            &t.bo
        } else {
            logs.push(t.robot());
            t.ann.read();
            t.bo.read();
            continue;
        };
        mover.yam(&[
            "move",
            game,
            "--auto",
            "random",
            "--seed",
            &(200 + n).to_string(),
        ]);
        logs.push(t.robot());
        t.ann.read();
        t.bo.read();
    }
    let logs = logs.join("\n");
    assert!(
        logs.lines()
            .any(|l| l.contains("refused") && l.contains(&format!("from {honest_address}"))),
        "the honest player's signed turns reached the robot: {logs}"
    );
    assert_eq!(
        t.robot_record(game),
        hidden,
        "the robot's copy stopped at the hidden turn"
    );
    // Forty-one days on (the players, meanwhile, play on).
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let at = (now + 41 * 86_400).to_string();
    let out = robot_once(&t.local.config, &[("YAM_ROBOT_NOW", &at)]);
    assert!(out.status.success(), "{}", stderr(&out));
    let late = stderr(&out);
    let notes: Vec<(String, Received)> = t
        .local
        .sent()
        .into_iter()
        .filter(|(_, r)| r.body.contains(&format!("yam forfeit {game}")))
        .collect();
    assert!(
        notes.iter().all(|(to, _)| !to.contains(&cheat_address)),
        "the robot tells {cheat_address} a forfeit may be claimed against {honest_address}, whose signed turns it refused: {notes:?}\n{late}\n{logs}"
    );
}

/// Attack (a stranger with a key of her own, who wants the robot to mail
/// third parties): challenges she signs, each of a game of its own naming
/// the robot, mailed under the From of another victim. Each first sight
/// makes her key a candidate for that address, and the robot mails the
/// victim a confirmation code; the bound of three waiting codes is per
/// address, and nothing counts these mails against `answers_per_hour`:
/// as many victims, as many mails an hour.
#[test]
fn confirmations_mailed_to_addresses_a_stranger_names_are_bounded_by_answers_per_hour() {
    let mut t = Referee::new();
    t.local
        .limits("  max_mail_bytes: 1048576\n  answers_per_hour: 5\n");
    // Eve (the "ann" desk) gets her partner's card once.
    t.ann.yam(&[
        "challenge",
        "bo@player.test",
        "--id",
        "khan-eve-0",
        "--game-type",
        "khan",
        "--ruleset",
        "basic",
    ]);
    assert_eq!(t.route(), 0);
    t.bo.read();
    assert_eq!(t.route(), 0);
    t.ann.read();
    let mut games = vec!["khan-eve-0".to_owned()];
    for i in 1..10 {
        let id = format!("khan-eve-{i}");
        t.ann.yam(&[
            "challenge",
            "bo@player.test",
            "--id",
            &id,
            "--game-type",
            "khan",
            "--ruleset",
            "basic",
        ]);
        games.push(id);
    }
    // Her key signs a card naming each victim (a card proves only that the
    // key's owner names the address), sent with the game as a desk would.
    for (i, id) in games.iter().enumerate() {
        let victim = format!("victim{i}@victim.test");
        t.local.deliver_raw(&carded_turn_mail(
            &victim,
            id,
            &t.ann.record(id),
            &format!("eve.{i}@player.test"),
            false,
            Some(t.ann.card_naming(&victim)),
        ));
    }
    let log = stderr(&t.local.run());
    let sent = t.local.sent();
    assert!(
        sent.len() <= 5,
        "{} confirmations mailed in one hour to addresses a stranger named, more than answers_per_hour (5):\n{log}",
        sent.len()
    );
    // Within the hour's answers the confirmations still go out.
    assert_eq!(sent.len(), 5, "{log}");
}

/// Setup checks (`plies` plies, no offer open), then the robot's look at
/// `now` must claim a forfeit in `game`; `why` says what it means if not.
fn claimed_after_answered_offer(local: &Local, game: &str, plies: u32, now: &str, why: &str) {
    let r = replay(&local.record(game));
    assert_eq!(r.plies(), plies, "setup: the mover never moved");
    assert!(
        r.first_open_offer().is_none(),
        "setup: the offer is answered"
    );
    let out = robot_once(&local.config, &[("YAM_ROBOT_NOW", now)]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        !replay(&local.record(game)).claims().is_empty(),
        "{why}:\n{}",
        stderr(&out)
    );
}

/// The game's bookkeeping as a build before the silence clock wrote it.
fn without_silence_fields(meta_path: &std::path::Path) {
    let meta = std::fs::read_to_string(meta_path).unwrap();
    let old: String = meta
        .lines()
        .filter(|l| !l.starts_with("move_due_since:") && !l.starts_with("answer_due_since:"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_ne!(old, meta, "setup: the new build wrote the silence fields");
    std::fs::write(meta_path, old).unwrap();
}

/// The robot's clock (`YAM_ROBOT_NOW`) `days` days after `game`'s last
/// activity, a minute into the day.
fn days_after_last_activity(local: &Local, game: &str) -> impl Fn(u64) -> String + use<> {
    let start = last_activity(local, game);
    move |days: u64| (start + days * 86_400 + 60).to_string()
}

#[test]
fn reminders_kept_by_an_earlier_build_belong_to_the_silence_they_were_sent_in() {
    // What users already have: a `robot.yaml` of an earlier build lists
    // the reminders sent (it emptied the list at every change) but not
    // the silence they were for (`reminders_since`). Bo was reminded on
    // day 14; he moves on day 20, and Ann's silence begins: her day-14
    // reminder is hers to get, not taken for one already sent. Within
    // Bo's own silence, the list still counts (the legal side of the
    // rule `a_reminder_already_sent_...` shows).
    let mut local = Local::new();
    let (game, ann, bo) = ann_and_bo_at_khan(&mut local);
    local.says("ann@player.test", &ann, "move Ng3-f3 #0");
    let at = days_after_last_activity(&local, &game);
    let reminded = |local: &Local, who: &str| {
        local
            .sent()
            .into_iter()
            .filter(|(to, r)| to.contains(who) && r.body.starts_with("Reminder"))
            .count()
    };
    let out = robot_once(&local.config, &[("YAM_ROBOT_NOW", &at(14))]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        reminded(&local, "bo@"),
        1,
        "setup: Bo is reminded on day 14"
    );
    // The file as the earlier build wrote it.
    let meta_path = local.root.join("data/games").join(&game).join("robot.yaml");
    let meta = std::fs::read_to_string(&meta_path).unwrap();
    assert!(meta.contains("reminders_since:"), "setup: {meta}");
    let old: String = meta
        .lines()
        .filter(|l| !l.starts_with("reminders_since:"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&meta_path, old).unwrap();
    local.says_at("bo@player.test", &bo, "move Ae7-f6 #1", &at(20));
    let out = robot_once(&local.config, &[("YAM_ROBOT_NOW", &at(35))]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        reminded(&local, "ann@"),
        1,
        "Ann, silent 15 days since Bo's move, is reminded:\n{}",
        stderr(&out)
    );
    assert_eq!(reminded(&local, "bo@"), 1, "Bo is not reminded again");
}

/// Attack (the invited player, with his own key, under a forged From): Bo
/// gets Ann's challenge, accepts it, and mails the record (her challenge
/// and his acceptance) to the robot under `From: ann@player.test` before
/// her copy of the challenge arrives, with an `X-Yam-Card` that his own
/// key signed naming Ann's address. A card proves only that its key claims
/// the address, and Bo's key is a party of the game: `proven_key` takes
/// it, ahead of the key Ann has confirmed for her address, and `bind`
/// binds Ann's address to Bo's key for good (an address speaks for one key
/// in a game). Ann's own mails, carded and from her address, are then
/// taken as relays of "the other player's" events, her key speaks for no
/// address, the game is not in her register, and she is neither reminded
/// when she is silent nor told when she may claim a forfeit.
#[test]
fn a_card_the_opponent_signed_naming_her_address_does_not_take_her_address_in_the_game() {
    let mut t = Referee::new();
    let game = "khan-ref-squat";
    // Ann is an established player: her key is confirmed for her address.
    t.ann.yam(&["identity", "send", "robot@yam.test"]);
    t.robot();
    confirm_keys(&mut t);
    challenge_held_back(&mut t, game);
    let ann_key = author_hex(&t.ann.record(game), 0);
    // Her challenge reaches Bo before its copy reaches the robot.
    let challenge_mail = std::fs::read_dir(&t.ann.outbox)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "eml"))
        .expect("the challenge in Ann's outbox");
    std::fs::copy(&challenge_mail, t.bo.inbox.join("000000.eml")).unwrap();
    assert!(t.bo.read().contains("refereed by robot@yam.test"));
    t.bo.yam(&["accept", game]);
    // Bo's relay of the accepted record, under her address, with his
    // key's card naming it, reaches the robot first.
    t.local.deliver_raw(&carded_turn_mail(
        "ann@player.test",
        game,
        &t.bo.record(game),
        "squat.1@player.test",
        false,
        Some(t.bo.card_naming("ann@player.test")),
    ));
    let mut logs = vec![t.robot()];
    t.ann.read();
    logs.push(t.robot());
    t.bo.read();
    for n in 0..3 {
        let mover = if t.ann.status(game) == "YOU" {
            &t.ann
        } else {
            &t.bo
        };
        mover.yam(&["move", game, "--auto", "random", "--seed", &n.to_string()]);
        logs.push(t.robot());
        t.ann.read();
        t.bo.read();
    }
    if t.ann.status(game) != "YOU" {
        t.bo.yam(&["move", game, "--auto", "random", "--seed", "7"]);
        logs.push(t.robot());
        t.ann.read();
        t.bo.read();
    }
    assert_eq!(t.ann.status(game), "YOU");
    let logs = logs.join("\n");
    assert_same_records(&t, game);
    let meta = witnessed_meta(&t, game);
    // Ann's address speaks for Ann's key, as her own carded mails say.
    assert!(
        meta.contains(&format!("key: {ann_key}\n  address: ann@player.test")),
        "Ann's address is not bound to her key:\n{meta}\n{logs}"
    );
    // Silent, she is reminded at her address.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let out = robot_once(
        &t.local.config,
        &[("YAM_ROBOT_NOW", &(now + 15 * 86_400).to_string())],
    );
    let log = stderr(&out);
    assert!(
        t.local
            .sent()
            .iter()
            .any(|(to, r)| to.contains("ann@player.test") && r.body.contains("Reminder")),
        "Ann, silent for 15 days, is not reminded:\n{log}\n{meta}"
    );
}

/// Attack (none: the mail on its way): the players of a game on an earlier
/// Yam, whose mails carry no card (or pass a gateway that drops
/// `X-Yam-Card`), are witnessed and bound to no key (docs/mail.md). A turn
/// mail of theirs that a gateway strips of its turn (only the text kept)
/// was logged and not answered while the players were bound by their first
/// events; now `lost_turn` asks for an address bound in the game, which
/// they never are, so the mail goes to the command path and the robot
/// answers the player's own turn mail as a command mail without a token.
#[test]
fn a_stripped_turn_mail_of_a_player_without_a_card_is_logged_not_answered() {
    let mut t = Referee::new();
    t.without_cards = true;
    let game = "khan-ref-stripped-earlier";
    open_refereed_unconfirmed(&mut t, game, &["--game-type", "khan", "--ruleset", "basic"]);
    assert!(t.local.sent().is_empty(), "{:?}", t.local.sent());
    let mover = if t.ann.status(game) == "YOU" {
        &t.ann
    } else {
        &t.bo
    };
    let mover_address = mover.address.clone();
    mover.yam(&["move", game, "--auto", "random", "--seed", "1"]);
    let outbox = mover.outbox.clone();
    for e in std::fs::read_dir(&outbox).unwrap().flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "eml") {
            let raw = std::fs::read(&p).unwrap();
            std::fs::write(&p, stripped_of_its_turn(&raw)).unwrap();
        }
    }
    let before = t.robot_record(game);
    let log = t.robot();
    assert_eq!(t.robot_record(game), before, "nothing taken");
    assert!(
        t.local.sent().is_empty(),
        "the robot answered {mover_address}'s own turn mail: {:?}\n{log}",
        t.local
            .sent()
            .iter()
            .map(|(to, r)| format!("{to}: {}", r.body))
            .collect::<Vec<_>>()
    );
    assert!(
        log.contains(&format!(
            "game {game}: the turn mail #1 from {mover_address} (bound to no key of the game) arrived without its turn"
        )),
        "{log}"
    );
}

/// Real life (a list or gateway that adds a footer and delivers its copy
/// right behind the direct one, so that both wait in the same look, as they
/// do for a robot run by cron with `--once`): Ann's authenticated mail is
/// marked done under its Message-ID and sender (`Work::also_done`) only
/// when its group is committed, but the changed copy's journal key was
/// taken when it was fetched, before that: its decision meets the open
/// group (Ann's player file, the game), the group is committed, and the
/// copy is decided again on the new store without looking at the marker
/// just written. Her one open challenge opened two games, each answered.
#[test]
fn a_copy_whose_text_a_gateway_changed_is_not_decided_again_when_it_arrives_in_the_same_look() {
    let mut local = Local::new();
    let ann = local.register("ann@player.test");
    let games = |local: &Local| {
        std::fs::read_dir(local.root.join("data/games"))
            .map(|d| d.count())
            .unwrap_or(0)
    };
    assert_eq!(games(&local), 0);
    let first = format!(
        "From: ann@player.test\r\nTo: robot@yam.test\r\nMessage-ID: <ann-challenge-1@player.test>\r\nSubject: challenge khan basic\r\n\r\ntoken: {ann}\r\n"
    );
    let copy = format!("{first}\r\n-- \r\nThis message passed through the club's gateway.\r\n");
    local.deliver_raw(first.as_bytes());
    local.deliver_raw(copy.as_bytes());
    let log = stderr(&local.run());
    assert_eq!(local.waiting(), 0, "{log}");
    assert_eq!(
        games(&local),
        1,
        "Ann's one challenge, delivered with a gateway's copy in the same look, was decided twice:\n{log}"
    );
}

/// Attack (a flooder with many addresses, each mailing the robot a Yam
/// record: a relay of a witnessed game's record, or a forged one): a mail
/// that carries a record is read in the first pass with the players'
/// own mail (`Robot::authenticated` says yes to any mail with a turn in
/// it), so `per_cycle` does not bound it, and the witness path counts a
/// sender that speaks for no key of the game only against
/// `per_sender_per_hour`, never against `unauthenticated_per_hour`. So
/// every one of them is read and verified, however many addresses send
/// them, where a flood of commands from as many addresses is cut off at
/// the hour's allowance (docs/robot.md: "a flood of records from
/// strangers is cut off like a flood of commands").
#[test]
fn records_from_strangers_are_read_only_within_the_hours_allowance_of_unauthenticated_mail() {
    let mut t = Referee::new();
    let game = "khan-ref-relay-flood";
    open_refereed(&mut t, game, &["--game-type", "khan", "--ruleset", "basic"]);
    // The defaults, with five unauthenticated mails an hour from everyone.
    t.local
        .limits("  max_mail_bytes: 1048576\n  unauthenticated_per_hour: 5\n");
    let record = t.robot_record(game);
    let forged = forge(&record);
    // Twenty strangers: ten relay the game's record as it is, ten a forged
    // copy of it.
    for i in 0..20 {
        let text = if i % 2 == 0 { &record } else { &forged };
        t.local.deliver_raw(&turn_mail(
            &format!("stranger{i}@flood.test"),
            game,
            text,
            &format!("flood.{i}@flood.test"),
            false,
        ));
    }
    let log = stderr(&t.local.run());
    let read = log
        .lines()
        .filter(|l| {
            l.contains("@flood.test")
                && (l.contains("its record") || l.contains("read before from"))
        })
        .count();
    assert!(
        read <= 5,
        "{read} records from twenty strangers read and verified in one hour, more than unauthenticated_per_hour (5):\n{log}"
    );
}

/// Real life in the robot's store: the witnessed copy of a game is
/// damaged on disk (a disk error, an operator's hand edit). The next mail
/// of the game was refused to its sender ("its record: ...: ... (found
/// ...)", the robot's own file's fault mailed to a player) and taken as
/// dealt with; now it waits unread, the run names the file, and once the
/// copy is mended the same mail is taken.
#[test]
fn a_damaged_witnessed_copy_holds_the_games_mail_and_refuses_nobody() {
    let mut t = Referee::new();
    let game = "khan-ref-damaged-copy";
    open_refereed(&mut t, game, &["--game-type", "khan", "--ruleset", "basic"]);
    let copy = t.local.root.join(format!("data/games/{game}/record.yam"));
    let good = std::fs::read(&copy).unwrap();
    std::fs::write(&copy, "[Event \"{[%event\"]\n\n1. *\n").unwrap();
    let mover = if t.ann.status(game) == "YOU" {
        &t.ann
    } else {
        &t.bo
    };
    mover.yam(&["move", game, "--auto", "random", "--seed", "3"]);
    let before = t.local.sent().len();
    t.route();
    let out = robot_once(&t.local.config, &[]);
    let log = stderr(&out);
    assert_eq!(t.local.sent().len(), before, "nobody is mailed: {log}");
    assert_eq!(t.local.waiting(), 1, "the turn mail waits: {log}");
    assert!(!out.status.success(), "{log}");
    assert!(log.contains(&format!("games/{game}/record.yam")), "{log}");
    std::fs::write(&copy, good).unwrap();
    let log = stderr(&t.local.run());
    assert_eq!(t.local.waiting(), 0, "{log}");
    assert!(
        log.contains(&format!("witnessed {game}: 1 new event")),
        "{log}"
    );
}

/// Attack (the opponent, copied on Ann's mails), on the robot's Maildir as
/// a real MTA writes it: Postfix's local and virtual delivery, Dovecot's
/// LDA and procmail store a Maildir file with plain LF line ends, not CR
/// LF. The journal key takes a mail's text after its headers, but
/// `key_headers` looks only for a CR LF CR LF to find where the headers
/// end; in an LF mail of less than 64 KiB it finds none and takes the
/// whole mail as headers, so the text hashed is empty and the key is the
/// Message-ID and sender alone. Bo's forged mail with the Message-ID and
/// From of Ann's move, refused, then makes her real move "a mail
/// delivered twice", skipped without a word, which
/// `a_forged_mail_that_copies_a_players_message_id_does_not_swallow_her_move`
/// holds against for CR LF mails only.
#[test]
fn a_forged_mail_that_copies_a_players_message_id_does_not_swallow_her_move_in_an_lf_maildir() {
    let mut local = Local::new();
    let (game, ann, _bo) = ann_and_bo_at_khan(&mut local);
    let forged = format!(
        "From: ann@player.test\nTo: robot@yam.test\nMessage-ID: <ann-move-1@player.test>\nSubject: resign {game}\n\nresign\n"
    );
    local.deliver_raw(forged.as_bytes());
    local.run();
    let real = format!(
        "From: ann@player.test\nTo: robot@yam.test\nMessage-ID: <ann-move-1@player.test>\nSubject: move {game} Ng3-f3 #0\n\ntoken: {ann}\n"
    );
    local.deliver_raw(real.as_bytes());
    let log = stderr(&local.run());
    assert_eq!(local.waiting(), 0);
    assert_eq!(
        replay(&local.record(&game)).plies(),
        1,
        "Ann's move, sent under a Message-ID a forger used first, is played (LF mail):\n{log}"
    );
}

#[test]
fn a_resignation_that_crosses_a_move_is_settled_by_the_witness_as_by_the_desks() {
    // Adversary: real life (mails crossing). The player who waits resigns
    // while the mover's move is on its way; each desk copies its mail to
    // the robot, which gets the two in either order (Ann's outbox is
    // routed first: with Ann resigning the robot reads the resignation
    // first, with Bo resigning the move). The robot settles the crossing
    // as the desks do (docs/fair-play.md, 3.10): the move stands, the
    // first resignation is void and kept, the one signed again ends the
    // game, and all three copies are one record.
    let mut orders = Vec::new();
    for ann_resigns in [true, false] {
        let mut t = Referee::new();
        let game = "khan-crossing";
        open_refereed(&mut t, game, &["--game-type", "khan", "--ruleset", "basic"]);
        play_refereed(&mut t, game, 2);
        // The seats are drawn: one more turn when the wrong player moves.
        if (t.ann.status(game) == "YOU") == ann_resigns {
            play_refereed(&mut t, game, 1);
        }
        let ann_moves = t.ann.status(game) == "YOU";
        assert_eq!(ann_moves, !ann_resigns);
        {
            let (resigner, mover) = if ann_moves {
                (&t.bo, &t.ann)
            } else {
                (&t.ann, &t.bo)
            };
            resigner.yam(&["resign", game]);
            mover.yam(&["move", game, "--auto", "random", "--seed", "7"]);
        }
        let log = t.robot();
        assert!(log.contains("crossed the stored"), "{log}");
        orders.push(log.contains("the stored game stands"));
        assert!(!log.contains("refused"), "{log}");
        for _ in 0..4 {
            t.ann.read();
            t.bo.read();
            let log = t.robot();
            assert!(!log.contains("refused"), "{log}");
        }
        assert_eq!(t.ann.status(game), "over");
        assert_eq!(t.bo.status(game), "over");
        assert_same_records(&t, game);
        let kept: Vec<_> = std::fs::read_dir(t.local.root.join("data/games").join(game))
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with("crossed-"))
            .collect();
        assert_eq!(kept.len(), 1, "the void history is kept once");
        // The resigner lost: the move stood, then the resignation.
        let record = t.robot_record(game);
        let resigner = if ann_moves { "bo" } else { "ann" };
        let result = if record.contains(&format!("[White \"{resigner}\"]")) {
            "[Result \"0-1\"]"
        } else {
            "[Result \"1-0\"]"
        };
        assert!(record.contains(result), "{record}");
    }
    assert_eq!(orders, [false, true], "both orders reach the robot");
}

#[test]
fn a_void_resignation_taken_back_by_a_move_is_not_witnessed_as_a_plain_turn() {
    // Adversary: the resigner, with a backup of her desk from before she
    // resigned. Ann resigns while Bo's move is on its way; the robot
    // settles the crossing (docs/fair-play.md, 3.10): Bo's move stands,
    // Ann's resignation is void and kept, and "a resignation is not taken
    // back by crossing". Ann's backup desk, which never resigned, reads
    // Bo's move and plays on. The witness, which holds Ann's signed
    // resignation as evidence, must not take her move as a plain turn.
    let mut t = Referee::new();
    let game = "khan-retract";
    open_refereed(&mut t, game, &["--game-type", "khan", "--ruleset", "basic"]);
    play_refereed(&mut t, game, 2);
    if t.ann.status(game) == "YOU" {
        play_refereed(&mut t, game, 1);
    }
    assert_eq!(t.bo.status(game), "YOU");
    // Ann's backup, taken before she resigns.
    let backup = t.local.root.join("ann-backup");
    let copied = std::process::Command::new("cp")
        .arg("-r")
        .arg(&t.ann.data)
        .arg(&backup)
        .status()
        .unwrap();
    assert!(copied.success());
    let hostile = Desk {
        address: t.ann.address.clone(),
        data: backup,
        outbox: t.ann.outbox.clone(),
        inbox: t.ann.inbox.clone(),
    };
    t.ann.yam(&["resign", game]);
    t.bo.yam(&["move", game, "--auto", "random", "--seed", "7"]);
    let log = t.robot();
    assert!(log.contains("crossed the stored"), "{log}");
    // The backup desk reads Bo's move (no resignation of its own to void)
    // and plays on; Ann's real desk reads nothing.
    hostile.read();
    assert_eq!(hostile.status(game), "YOU");
    hostile.yam(&["move", game, "--auto", "random", "--seed", "8"]);
    let before = t.robot_record(game);
    let log = t.robot();
    let after = t.robot_record(game);
    assert!(
        after == before || log.contains("resign"),
        "the witness takes a move of the player whose signed resignation it keeps as evidence, as a plain turn:\n{log}"
    );
}

/// A mail whose only part is HTML, as `Local::deliver` writes a plain one.
fn html_mail(from: &str, id: &str, subject: &str, html: &str) -> Vec<u8> {
    format!(
        "From: {from}\r\nTo: robot@yam.test\r\nMessage-ID: <{id}>\r\nSubject: {subject}\r\nMIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n\r\n{html}\r\n"
    )
    .into_bytes()
}

#[test]
fn a_robot_mail_quoted_in_an_html_reply_is_not_obeyed() {
    // Ann's mail program writes HTML only, and quotes the robot's answer
    // in a <blockquote>, its lines kept by <br>, as HTML mail programs
    // do. She asks for the board; the quoted answer holds the placement
    // the robot suggests (`  move GAME Defender:... #0`). A quoted line is
    // not hers: it must not seal a setup she never chose, which can never
    // be changed afterwards.
    let mut local = Local::new();
    let ann = local.register("ann@player.test");
    let bo = local.register("bo@player.test");
    local.says(
        "ann@player.test",
        &ann,
        "challenge castle-siege bo@player.test",
    );
    let game = game_of(&local);
    local.says("bo@player.test", &bo, &format!("join {game}"));
    let begun = last_to(&local, "ann@player.test", "The game begins");
    assert!(
        begun.body.contains("Reply (a legal placement"),
        "{}",
        begun.body
    );
    let events = replay_of(&local, &game).events().len();
    let quoted: String = begun
        .body
        .lines()
        .map(|l| format!("{}<br>\r\n", l.replace('&', "&amp;").replace('<', "&lt;")))
        .collect();
    let html = format!(
        "<html><body><p>show</p><p>token: {ann}</p><p>On Monday the Yam robot wrote:</p>\
         <blockquote type=\"cite\">{quoted}</blockquote></body></html>"
    );
    local.deliver_raw(&html_mail(
        "ann@player.test",
        "html-reply@player.test",
        "Re: [Yam] the board",
        &html,
    ));
    local.run();
    let answer = last_to(&local, "ann@player.test", "> show");
    assert!(
        !answer.body.contains("played Defender:sealed"),
        "a quoted line sealed Ann's setup:\n{}",
        answer.body
    );
    assert_eq!(
        replay_of(&local, &game).events().len(),
        events,
        "the record took an event Ann did not write"
    );
}

#[test]
fn a_robot_mail_below_a_german_outlook_reply_is_not_obeyed() {
    // Ann's Outlook is set to German and to plain text, as many an
    // office's is. It puts the original under her reply unquoted, behind
    // its own German separator and header block (`-----Ursprüngliche
    // Nachricht-----`, `Von:`, `Gesendet:`, `An:`, `Betreff:`), exactly
    // as the English one writes `-----Original Message-----`, `From:`,
    // `Sent:` (robot.md: reading stops there). She asks for the board;
    // the original holds the placement the robot suggests (`  move GAME
    // Defender:... #0`). That line is the robot's, not hers: it must not
    // seal a setup she never chose, which can never be changed.
    let mut local = Local::new();
    let ann = local.register("ann@player.test");
    let bo = local.register("bo@player.test");
    local.says(
        "ann@player.test",
        &ann,
        "challenge castle-siege bo@player.test",
    );
    let game = game_of(&local);
    local.says("bo@player.test", &bo, &format!("join {game}"));
    let begun = last_to(&local, "ann@player.test", "The game begins");
    assert!(
        begun.body.contains("Reply (a legal placement"),
        "{}",
        begun.body
    );
    let events = replay_of(&local, &game).events().len();
    let body = format!(
        "show {game}\r\ntoken: {ann}\r\n\r\n-----Ursprüngliche Nachricht-----\r\n\
         Von: Yam robot [mailto:robot@yam.test]\r\nGesendet: Montag, 7. Dezember 2026 17:00\r\n\
         An: ann@player.test\r\nBetreff: {}\r\n\r\n{}\r\n",
        begun.subject,
        begun.body.replace('\n', "\r\n")
    );
    let raw = format!(
        "From: ann@player.test\r\nTo: robot@yam.test\r\nMessage-ID: <outlook-de@player.test>\r\n\
         Subject: AW: {}\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\
         Content-Transfer-Encoding: 8bit\r\n\r\n{body}",
        begun.subject
    );
    local.deliver_raw(raw.as_bytes());
    local.run();
    let answer = last_to(&local, "ann@player.test", "> show");
    assert!(
        !answer.body.contains("played Defender:sealed"),
        "a line of the robot's own mail, below Ann's German Outlook reply, sealed her setup:\n{}",
        answer.body
    );
    assert_eq!(
        replay_of(&local, &game).events().len(),
        events,
        "the record took an event Ann did not write"
    );
}

#[test]
fn an_html_only_mail_written_in_divs_is_read_line_by_line() {
    // Webmail composers write each line of an HTML-only mail as a <div>.
    // Ann's move and her token are two lines: read as one, her move is
    // lost, she is told her mail "carries no token line" (it does), and
    // her next tries that day get no answer at all, while her clock runs.
    let mut local = Local::new();
    let (game, ann, _) = ann_and_bo_at_khan(&mut local);
    let html = format!("<div dir=\"ltr\"><div>move Ng3-f3 #0</div><div>token: {ann}</div></div>");
    local.deliver_raw(&html_mail(
        "ann@player.test",
        "divs@player.test",
        "my move",
        &html,
    ));
    let out = local.run();
    assert_eq!(
        replay(&local.record(&game)).plies(),
        1,
        "Ann's move was not played: {}",
        stderr(&out)
    );
}

#[test]
fn a_mail_without_message_id_delivered_twice_is_obeyed_once() {
    // A mail without a Message-ID is keyed by its bytes; the same mail
    // delivered again by another route differs only in a trace header
    // (`Received:`), and must still be the same mail: obeyed at most once.
    let mut local = Local::new();
    let ann = local.register("ann@player.test");
    local.deliver(
        "ann@player.test",
        "challenge genghis-khan",
        &format!("token: {ann}\nseed: first words"),
    );
    local.run();
    let game = game_of(&local);
    local.says("ann@player.test", &ann, "move start #0");
    assert_eq!(replay(&local.record(&game)).plies(), 0);
    let mail = format!(
        "From: ann@player.test\r\nTo: robot@yam.test\r\nSubject: move draw\r\nDate: Mon, 7 Dec 2026 02:00:00 +0000\r\n\r\ntoken: {ann}\r\nseed: once\r\n"
    );
    local.deliver_raw(mail.as_bytes());
    local.run();
    assert_eq!(replay(&local.record(&game)).plies(), 1);
    local.deliver_raw(
        format!("Received: from mx2.player.test by mx.yam.test; Mon, 7 Dec 2026 02:05:00 +0000\r\n{mail}")
            .as_bytes(),
    );
    local.run();
    assert_eq!(
        replay(&local.record(&game)).plies(),
        1,
        "the same mail, delivered again by another route, was obeyed twice"
    );
}

#[test]
fn a_second_castle_siege_setup_is_refused_without_naming_the_robots_files() {
    // The refusal of a second setup must say why without mailing the
    // player the store's paths or the name of her custodial key.
    let mut local = Local::new();
    let ann = local.register("ann@player.test");
    let bo = local.register("bo@player.test");
    local.says(
        "ann@player.test",
        &ann,
        "challenge castle-siege bo@player.test",
    );
    let game = game_of(&local);
    local.says("bo@player.test", &bo, &format!("join {game}"));
    local.says(
        "ann@player.test",
        &ann,
        &format!("move {game} Defender:CKAO/OACK/KCOA/AOKC #0"),
    );
    local.says(
        "ann@player.test",
        &ann,
        &format!("move {game} Defender:KKAO/OACC/KCOA/AOKC"),
    );
    let refused = last_to(&local, "ann@player.test", "Defender:KKAO");
    let root = local.root.display().to_string();
    assert!(
        refused.body.contains("Refused")
            && !refused.body.contains(&root)
            && !refused.body.contains("secrets"),
        "{}",
        refused.body
    );
}

#[test]
fn a_registered_player_cannot_mail_a_stranger_more_than_one_invitation_a_day() {
    // Who can do what: a registered abuser cannot "mail a stranger more
    // than once a day". Vic never wrote to the robot; the first
    // invitation registers her (its token goes to her), and from then on
    // every invitation to her passes as one to a registered player: Ann
    // mails her one after another, up to `invitations_per_day` a day, and
    // every other registered player as many again.
    let mut local = Local::new();
    let ann = local.register("ann@player.test");
    for _ in 0..3 {
        local.says(
            "ann@player.test",
            &ann,
            "challenge khan basic vic@stranger.test",
        );
    }
    let to_vic = local
        .sent()
        .into_iter()
        .filter(|(to, _)| to.contains("vic@stranger.test"))
        .count();
    assert_eq!(
        to_vic, 1,
        "a stranger got {to_vic} mails from the robot in a day"
    );
    last_to(&local, "ann@player.test", "try again tomorrow");
}

#[test]
fn an_html_only_mail_in_a_pre_block_keeps_its_lines() {
    // A `<pre>` block (Thunderbird's "Preformat" paragraph style, a mail
    // program's fixed-width text) shows its line breaks as they are: Ann's
    // move and her token are two lines on her screen. Read with their
    // newline collapsed into a space they are one line, her move is lost
    // and she is told her mail carries no token line.
    let mut local = Local::new();
    let (game, ann, _) = ann_and_bo_at_khan(&mut local);
    let html = format!("<html><body><pre>move Ng3-f3 #0\ntoken: {ann}\n</pre></body></html>");
    local.deliver_raw(&html_mail(
        "ann@player.test",
        "pre@player.test",
        "my move",
        &html,
    ));
    let out = local.run();
    assert_eq!(
        replay(&local.record(&game)).plies(),
        1,
        "Ann's move in a <pre> block was not played: {}",
        stderr(&out)
    );
}

#[test]
fn two_mails_without_message_id_or_date_on_two_turns_are_both_obeyed() {
    // A player's script mails the robot a bare message: no Message-ID, no
    // Date (an MTA relaying it from a remote client adds neither). Each
    // turn she sends the same words, "move draw" and her token: two
    // mails, delivered an hour apart, each with its own Received line.
    // Keyed by the authored headers and text alone they are one mail, and
    // the second turn's move is swallowed as "a mail delivered twice",
    // without a word, while her clock runs.
    let mut local = Local::new();
    let ann = local.register("ann@player.test");
    local.deliver(
        "ann@player.test",
        "challenge genghis-khan",
        &format!("token: {ann}\nseed: first words"),
    );
    local.run();
    let game = game_of(&local);
    local.says("ann@player.test", &ann, "move start #0");
    assert_eq!(replay(&local.record(&game)).plies(), 0);
    let mail = format!(
        "From: ann@player.test\r\nTo: robot@yam.test\r\nSubject: move draw\r\n\r\ntoken: {ann}\r\n"
    );
    local.deliver_raw(
        format!("Received: from script.player.test by mx.yam.test; Mon, 7 Dec 2026 02:00:00 +0000\r\n{mail}")
            .as_bytes(),
    );
    local.run();
    assert_eq!(replay(&local.record(&game)).plies(), 1);
    // The same move, a turn later, is legal again: with a Message-ID
    // this second mail is played.
    local.deliver_raw(
        format!("Received: from script.player.test by mx.yam.test; Mon, 7 Dec 2026 03:00:00 +0000\r\n{mail}")
            .as_bytes(),
    );
    let out = local.run();
    assert_eq!(
        replay(&local.record(&game)).plies(),
        2,
        "the second turn's mail was swallowed as the first one delivered again: {}",
        stderr(&out)
    );
}

#[test]
#[ignore = "left open (docs/robot.md, \"Who can do what\"): a copy whose route added a Message-ID is keyed by it; matching it to the copy without one would swallow two mails of the same words (see two_mails_without_message_id_or_date_on_two_turns_are_both_obeyed)"]
fn a_mail_without_message_id_whose_second_route_adds_one_is_obeyed_once() {
    // The same mail, without a Message-ID, comes by two routes; the
    // second relays through an MTA that adds the Message-ID a mail lacks
    // (sendmail does; Postfix and Exim do for the mail they submit). It is
    // one mail, by the same author, with the same text: obeyed once.
    let mut local = Local::new();
    let ann = local.register("ann@player.test");
    local.deliver(
        "ann@player.test",
        "challenge genghis-khan",
        &format!("token: {ann}\nseed: first words"),
    );
    local.run();
    let game = game_of(&local);
    local.says("ann@player.test", &ann, "move start #0");
    assert_eq!(replay(&local.record(&game)).plies(), 0);
    let mail = format!(
        "From: ann@player.test\r\nTo: robot@yam.test\r\nSubject: move draw\r\nDate: Mon, 7 Dec 2026 02:00:00 +0000\r\n\r\ntoken: {ann}\r\nseed: once\r\n"
    );
    local.deliver_raw(mail.as_bytes());
    local.run();
    assert_eq!(replay(&local.record(&game)).plies(), 1);
    local.deliver_raw(
        format!("Received: from mx2.player.test by mx.yam.test; Mon, 7 Dec 2026 02:05:00 +0000\r\nMessage-ID: <20261207020500.1@mx2.player.test>\r\n{mail}")
            .as_bytes(),
    );
    local.run();
    assert_eq!(
        replay(&local.record(&game)).plies(),
        1,
        "the same mail, delivered again by a route that added a Message-ID, was obeyed twice"
    );
}

#[test]
fn an_html_only_mails_signature_is_not_read_as_commands() {
    // A plain-text mail is read up to its signature separator (`-- `);
    // Gmail writes the same separator in an HTML-only mail
    // (`<span class="gmail_signature_prefix">-- </span>`), and Thunderbird
    // in a `moz-signature` div. Ann's signature is not a command of hers,
    // and her answer must not come back with it refused as one.
    let mut local = Local::new();
    let (game, ann, _) = ann_and_bo_at_khan(&mut local);
    let html = format!(
        "<div dir=\"ltr\"><div>show {game}</div><div>token: {ann}</div><br clear=\"all\"><br>\
         <span class=\"gmail_signature_prefix\">-- </span><br><div dir=\"ltr\" class=\"gmail_signature\">\
         <div>Play well,</div><div>Ann</div></div></div>"
    );
    local.deliver_raw(&html_mail(
        "ann@player.test",
        "sig@player.test",
        "the board",
        &html,
    ));
    local.run();
    let answer = last_to(&local, "ann@player.test", "> show");
    assert!(
        !answer.body.contains("well,"),
        "Ann's signature was read as a command:\n{}",
        answer.body
    );
}

/// Found by an attacker helper (attack6): the invited address of a
/// `challenge` is lower-cased in ASCII only, while a sender's address is
/// lower-cased whole (`extract::sender_address`) and a player's file is
/// named by the address lower-cased whole (`auth::address_key`). Ann
/// invites `Ümit@player.test` as Ümit writes it: the robot registers Ümit
/// (her file, `ümit@player.test`) and mails her the token, but her `join`
/// from her own address, with that token, is refused as "a challenge to
/// another player", since the challenge keeps `Ümit@...` and her From is
/// `ümit@...`. The invited player can never take her seat.
#[test]
fn an_invited_address_with_a_capital_beyond_ascii_can_join_its_challenge() {
    let mut local = Local::new();
    let ann = local.register("ann@player.test");
    local.deliver(
        "ann@player.test",
        "challenge khan basic Ümit@player.test",
        &format!("token: {ann}"),
    );
    local.run();
    let game = game_of(&local);
    let invitation = local
        .sent()
        .into_iter()
        .map(|(_, r)| r)
        .find(|r| r.subject.contains("challenges you"))
        .expect("the invitation is mailed");
    let token = token_in(&invitation.body).expect("the invitation carries her token");
    // Ümit answers from her own address (her mail program writes it in
    // lower case, or in capitals: the robot lower-cases a From whole).
    local.deliver(
        "ümit@player.test",
        &format!("join {game}"),
        &format!("token: {token}"),
    );
    local.run();
    let answer = local
        .sent()
        .into_iter()
        .map(|(_, r)| r)
        .find(|r| r.body.contains(&format!("> join {game}")))
        .expect("her join is answered");
    assert!(
        answer.body.contains("The game begins"),
        "the invited player could not join her own invitation:\n{}",
        answer.body
    );
}

/// Found by an attacker helper (attack6): a delivery status notification
/// (`Content-Type: multipart/report`, RFC 3464) is answered when it comes
/// without an empty `Return-Path` and from an address that is not
/// `MAILER-DAEMON` or `postmaster` (a gateway's bounce address, a mailbox
/// read where the final hop wrote no `Return-Path`). The mail reader
/// already knows it for a delivery report (`Incoming::report`), which the
/// desks never answer (`Incoming::automatic_not_yam`), but the robot's
/// hygiene does not look at it: the robot welcomes the bounce address,
/// registers it, and mails it a token. RFC 3834 (which docs/robot.md,
/// "Mail hygiene", cites for never answering bounces) says no automatic
/// response goes to a delivery report.
#[test]
fn a_delivery_report_is_never_answered_even_without_an_empty_return_path() {
    let mut local = Local::new();
    local.deliver_raw(
        b"From: Mail Delivery System <bounces@gateway.test>\r\n\
          To: robot@yam.test\r\n\
          Message-ID: <dsn1@gateway.test>\r\n\
          Subject: Undelivered Mail Returned to Sender\r\n\
          MIME-Version: 1.0\r\n\
          Content-Type: multipart/report; report-type=delivery-status; boundary=\"B\"\r\n\
          \r\n\
          --B\r\n\
          Content-Type: text/plain\r\n\
          \r\n\
          Your message could not be delivered.\r\n\
          help\r\n\
          --B\r\n\
          Content-Type: message/delivery-status\r\n\
          \r\n\
          Reporting-MTA: dns; gateway.test\r\n\
          \r\n\
          Final-Recipient: rfc822; someone@else.test\r\n\
          Action: failed\r\n\
          Status: 5.1.1\r\n\
          --B--\r\n",
    );
    local.run();
    assert_eq!(local.waiting(), 0);
    let sent = local.sent();
    assert!(
        sent.is_empty(),
        "the robot answered a delivery report: {:?}",
        sent.iter()
            .map(|(to, r)| (to, &r.subject))
            .collect::<Vec<_>>()
    );
}

/// Every `.eml` in `outbox` delivered to the robot alone, then moved
/// aside (so the next call delivers only newer mail); how many.
fn deliver_outbox_to_robot(t: &mut Referee, outbox: &std::path::Path) -> usize {
    let sent = outbox.join("sent");
    std::fs::create_dir_all(&sent).unwrap();
    let mut n = 0;
    for e in std::fs::read_dir(outbox).unwrap().flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "eml") {
            t.local.deliver_raw(&std::fs::read(&p).unwrap());
            std::fs::rename(&p, sent.join(p.file_name().unwrap())).unwrap();
            n += 1;
        }
    }
    n
}

/// Attack (a player with his own key, the equivocator of
/// `a_turn_signed_twice_by_the_mover_does_not_let_the_robot_call_his_opponent_silent`):
/// he signs two turns at one place, mails one to the robot alone and plays
/// the other with his opponent. The robot notes the equivocation and
/// reminds nobody; but its copy still follows his hidden branch, on which
/// the honest player never moves (her turns are on the other one, and are
/// refused). Forty-one days on, his backup desk signs a forfeit claim
/// against her on that hidden branch and mails it to the robot alone: the
/// robot takes it as any new event and closes its copy "over", a forfeit
/// against a player whose signed turns of those very days it refused. The
/// harm the earlier fix named ("his claim on the hidden turn closes its
/// copy: the witness's record says she was forfeited in a game she never
/// stopped playing") is still there, by his own claim instead of the
/// robot's notice.
#[test]
fn an_equivocators_forfeit_claim_on_his_hidden_branch_does_not_close_the_witnessed_game() {
    let mut t = Referee::new();
    let game = "khan-ref-twice-claim";
    open_refereed(&mut t, game, &["--game-type", "khan", "--ruleset", "basic"]);
    play_refereed(&mut t, game, 2);
    let bo_moves = t.bo.status(game) == "YOU";
    let root = t.local.root.clone();
    let cheat = if bo_moves { &t.bo } else { &t.ann };
    // The hidden turn, from a copy of his desk, mailed to the robot alone.
    let second = desk_copy(cheat, &root, "cheat-claim");
    second.yam(&["move", game, "--auto", "random", "--seed", "101"]);
    let hidden = second.record(game);
    assert!(deliver_outbox_to_robot(&mut t, &second.outbox) > 0);
    let log = stderr(&t.local.run());
    assert!(log.contains(&format!("witnessed {game}: ")), "{log}");
    // The turn he plays with his opponent; they play on.
    let cheat = if bo_moves { &t.bo } else { &t.ann };
    cheat.yam(&["move", game, "--auto", "random", "--seed", "102"]);
    let mut logs = vec![t.robot()];
    t.ann.read();
    t.bo.read();
    for n in 0..4 {
        let mover = if t.ann.status(game) == "YOU" {
            &t.ann
        } else if t.bo.status(game) == "YOU" {
            &t.bo
        } else {
            logs.push(t.robot());
            t.ann.read();
            t.bo.read();
            continue;
        };
        mover.yam(&[
            "move",
            game,
            "--auto",
            "random",
            "--seed",
            &(200 + n).to_string(),
        ]);
        logs.push(t.robot());
        t.ann.read();
        t.bo.read();
    }
    let logs = logs.join("\n");
    assert!(
        logs.contains("signed twice"),
        "the equivocation is noted: {logs}"
    );
    assert_eq!(t.robot_record(game), hidden);
    // Forty-one days on, his backup desk claims a forfeit on the hidden
    // branch, mailed to the robot alone.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let at = (now + 41 * 86_400).to_string();
    let claim = yam_tests::yam!()
        .args(["forfeit", game, "--data-dir"])
        .arg(&second.data)
        .env("YAM_NOW", &at)
        .output()
        .unwrap();
    assert!(
        claim.status.success(),
        "{}{}",
        String::from_utf8_lossy(&claim.stdout),
        String::from_utf8_lossy(&claim.stderr)
    );
    assert!(deliver_outbox_to_robot(&mut t, &second.outbox) > 0);
    let out = robot_once(&t.local.config, &[("YAM_ROBOT_NOW", &at)]);
    assert!(out.status.success(), "{}", stderr(&out));
    let late = stderr(&out);
    let meta = witnessed_meta(&t, game);
    assert!(
        t.robot_record(game) == hidden && !meta.contains("stage: over"),
        "the robot closed its copy on the equivocator's forfeit claim against the player whose turns it refused:\n{late}\n{meta}"
    );
    // The claim is kept as evidence, in one file beside the game.
    let kept = t.local.root.join("data/games").join(game);
    let evidence: Vec<_> = std::fs::read_dir(&kept)
        .unwrap()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("after-equivocation")
        })
        .collect();
    assert_eq!(evidence.len(), 1, "{late}");
    let text = std::fs::read_to_string(evidence[0].path()).unwrap();
    assert!(text.contains("[%event"), "{text}");
}

/// Attack (the silent player of a witnessed game, who lost by forfeit):
/// after forty-one days the waiting player claims a forfeit, and the claim
/// closes the robot's copy (docs/robot.md, "Deadlines"). The silent player
/// then reads the claim and signs a late move after it. A claim the
/// accused answered with a late move still stands (docs/fair-play.md, 9.7:
/// only the claimant's own turn withdraws it), yet the witness takes the
/// move as any turn, finds no claim among the new events and no ending in
/// the replay, and opens its copy again: its clock now runs against the
/// claimant, who won, and forty days on it tells the forfeited player that
/// he may claim a forfeit against her.
#[test]
fn a_late_move_after_a_standing_forfeit_claim_does_not_reopen_the_witnessed_game() {
    let mut t = Referee::new();
    let game = "khan-ref-late";
    open_refereed(&mut t, game, &["--game-type", "khan", "--ruleset", "basic"]);
    let ann_moves = t.ann.status(game) == "YOU";
    let (silent, waiting) = if ann_moves {
        (&t.ann, &t.bo)
    } else {
        (&t.bo, &t.ann)
    };
    let (silent_address, waiting_address) = (silent.address.clone(), waiting.address.clone());
    let waiting_data = waiting.data.clone();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let at = move |days: u64| (now + days * 86_400).to_string();
    let run_at = |t: &Referee, days: u64| {
        let out = robot_once(&t.local.config, &[("YAM_ROBOT_NOW", &at(days))]);
        assert!(out.status.success(), "{}", stderr(&out));
        stderr(&out)
    };
    let claim = yam_tests::yam!()
        .args(["forfeit", game, "--data-dir"])
        .arg(&waiting_data)
        .env("YAM_NOW", at(41))
        .output()
        .unwrap();
    assert!(
        claim.status.success(),
        "{}",
        String::from_utf8_lossy(&claim.stderr)
    );
    t.route();
    let log = run_at(&t, 41);
    assert!(log.contains("the game is over"), "{log}");
    // The forfeited player reads the claim and moves after it.
    let silent = if ann_moves { &t.ann } else { &t.bo };
    let said = silent.read();
    assert!(said.contains("forfeit"), "{said}");
    silent.yam(&["move", game, "--auto", "random", "--seed", "5"]);
    t.route();
    let late = run_at(&t, 42);
    assert!(late.contains(&format!("witnessed {game}")), "{late}");
    let meta = witnessed_meta(&t, game);
    let later = run_at(&t, 90);
    let told: Vec<String> = t
        .local
        .sent()
        .into_iter()
        .filter(|(to, r)| {
            (to.contains(&silent_address) && r.body.contains(&format!("yam forfeit {game}")))
                || (to.contains(&waiting_address) && r.body.contains("Reminder"))
        })
        .map(|(to, r)| format!("{to}: {}", r.body))
        .collect();
    assert!(
        meta.contains("stage: over") && told.is_empty(),
        "a late move after the standing claim reopened the witnessed game:\n{meta}\n{told:?}\n{late}\n{later}"
    );
}

#[test]
fn a_move_taken_while_the_robots_clock_was_behind_forfeits_nobody_once_it_is_right() {
    // Real life: the robot runs on a small machine with no battery-backed
    // clock; after a power cut it boots with the time it last saved, 60
    // days behind, and reads Ann's move before NTP sets the clock right.
    // The robot had seen the game's last activity at the right time, so
    // it can tell the clock went back, yet it starts Bo's silence 60 days
    // ago: on the next look, a minute later by the right clock, it signs
    // a forfeit claim against Bo, with its own timestamp, and stops the
    // game ("At the forfeit day it signs a ForfeitClaim against the
    // silent player", docs/robot.md, Deadlines). Bo had the move for a
    // minute.
    let mut local = Local::new();
    let (game, ann, _) = ann_and_bo_at_khan(&mut local);
    let last = last_activity(&local, &game);
    local.deliver(
        "ann@player.test",
        "move Ng3-f3 #0",
        &format!("token: {ann}"),
    );
    let behind = (last - 60 * 86_400).to_string();
    let out = robot_once(&local.config, &[("YAM_ROBOT_NOW", &behind)]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        replay(&local.record(&game)).plies(),
        1,
        "setup: Ann's move is taken"
    );
    let right = (last + 60).to_string();
    let out = robot_once(&local.config, &[("YAM_ROBOT_NOW", &right)]);
    assert!(
        replay(&local.record(&game)).claims().is_empty(),
        "the robot claimed a forfeit against Bo a minute after Ann's move reached him: {}",
        stderr(&out)
    );
}
/// A witnessed game's mails carry the whole record twice (the turn block's
/// base64 and the attached lines, `docs/mail.md`), so they grow with the
/// game, up to a record of 16 MiB that every desk and `yam verify` take.
/// The robot downloads no mail over `max_mail_bytes`, 1 MiB by default
/// ("no command or record is that large", `robot/mod.rs`): once a game's
/// record passes some 450 kB (a long faithful siege; a Khan game of some
/// 1,500 plies, which KR-6.5 allows a side that captures every 99 plies;
/// or, as here, a player's long comments), every later mail of the game
/// is dropped unread, logged only as "ignored a mail of N bytes". The
/// players are told nothing; the witnessed copy ("byte for byte the
/// players' record", `docs/mail.md`) stops for good, and the robot's
/// clock then reminds the player who did move, and tells the other that a
/// forfeit may be claimed. Either the robot reads a game's mail up to
/// what a record may be, or the players (and the operator) are told, at
/// the turn it happens, that the referee no longer sees their game.
#[test]
fn a_witnessed_game_whose_record_grows_past_a_megabyte_is_still_witnessed() {
    let mut t = Referee::new();
    let game = "khan-long";
    open_refereed(&mut t, game, &["--game-type", "khan", "--ruleset", "basic"]);
    // A comment of 100 kB a turn: well under any limit of the notation
    // (16 MiB a game) and of the desk (16 MiB a mail).
    let comment = "a long note on the position ".repeat(3_700);
    let mut logs = String::new();
    let mut played = 0;
    for _ in 0..40 {
        if played == 6 {
            break;
        }
        let mover = match (t.ann.status(game).as_str(), t.bo.status(game).as_str()) {
            ("YOU", _) => &t.ann,
            (_, "YOU") => &t.bo,
            _ => {
                logs.push_str(&t.robot());
                t.ann.read();
                t.bo.read();
                continue;
            }
        };
        let out = mover.yam(&[
            "move",
            game,
            "--auto",
            "random",
            "--seed",
            &played.to_string(),
            "--comment",
            &comment,
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        played += 1;
        logs.push_str(&t.robot());
        t.ann.read();
        t.bo.read();
    }
    assert_eq!(played, 6);
    let record = t.ann.record(game);
    assert_eq!(record, t.bo.record(game), "the desks agree");
    assert!(record.len() > 500_000, "a record of {} bytes", record.len());
    assert!(
        !logs.contains("ignored a mail"),
        "a mail of the witnessed game was dropped unread:\n{}",
        logs.lines()
            .filter(|l| l.contains("ignored") || l.contains("witnessed"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(
        t.robot_record(game) == record,
        "the robot's witnessed copy ({} bytes) is the players' record ({} bytes)",
        t.robot_record(game).len(),
        record.len()
    );
}

/// The other side of the larger limit for a witnessed game's mail: only a
/// mail Yam wrote about the game (`X-Yam-Game`) from one of its players
/// is read past `max_mail_bytes`. A stranger's 2 MB mail naming the game,
/// and a player's 2 MB mail that names none, are never downloaded, as
/// before: the witness's limit is no way round the robot's.
#[test]
fn a_large_mail_is_read_only_when_a_player_of_a_witnessed_game_wrote_it_about_the_game() {
    let mut t = Referee::new();
    let game = "khan-large";
    open_refereed(&mut t, game, &["--game-type", "khan", "--ruleset", "basic"]);
    let padding = "x".repeat(76);
    let body: String = std::iter::repeat_n(padding.as_str(), 28_000)
        .collect::<Vec<_>>()
        .join("\r\n");
    for (from, header) in [
        (
            "mallory@elsewhere.test",
            format!("X-Yam-Game: {game} 1\r\n"),
        ),
        ("ann@player.test", String::new()),
    ] {
        t.local.deliver_raw(
            format!(
                "From: {from}\r\nTo: robot@yam.test\r\nMessage-ID: <large.{}@elsewhere.test>\r\n{header}Subject: {game}\r\n\r\n{body}\r\n",
                from.len()
            )
            .as_bytes(),
        );
    }
    let logs = t.robot();
    assert_eq!(
        logs.matches("ignored a mail of").count(),
        2,
        "both large mails are left unread:\n{logs}"
    );
}

/// The read(2) calls one `yam robot run --once` makes at `now` (seconds
/// since the epoch), from the kernel's accounting of the shell that ran it
/// and waited for it (a reaped child's reads are added to its parent's
/// `/proc/PID/io`): a count the machine's load does not move.
#[cfg(target_os = "linux")]
fn robot_read_calls(local: &Local, now: u64) -> u64 {
    let now = now.to_string();
    yam_tests::read_calls(
        yam_tests::yam_bin!().as_ref(),
        &[
            "robot".as_ref(),
            "run".as_ref(),
            "--once".as_ref(),
            "--config".as_ref(),
            local.config.as_os_str(),
        ],
        &[("YAM_ROBOT_NOW", &now)],
    )
}

/// A robot that has run for years keeps every game it ever refereed; a
/// game that is over owes no reminder, no forfeit and no expiry, yet every
/// look at the mailbox (every poll, every mail that wakes IMAP IDLE, every
/// `--once` from cron) opened and parsed the bookkeeping of every game in
/// the store, and the start walked every file of the store: an empty look
/// at 3,000 games over made 6,030 read calls and 15,049 `statx` (87.6 ms
/// of CPU) against 230 and 549 (4.6 ms) at 100.
#[cfg(target_os = "linux")]
#[test]
fn an_empty_look_reads_no_game_that_is_over() {
    let mut local = Local::new();
    let token = local.register("ann@player.test");
    let day = 86_400;
    let start = 2_000_000_000u64;
    // Khan challenges nobody joins: each expires, over.
    let challenge = |local: &mut Local, n: usize, at: u64| {
        for _ in 0..n {
            local.deliver(
                "ann@player.test",
                "challenge khan",
                &format!("token: {token}"),
            );
        }
        let out = robot_once(&local.config, &[("YAM_ROBOT_NOW", &at.to_string())]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let out = robot_once(
            &local.config,
            &[("YAM_ROBOT_NOW", &(at + 60 * day).to_string())],
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let over = |local: &Local| {
        std::fs::read_dir(local.root.join("data/games"))
            .unwrap()
            .flatten()
            .filter(|e| {
                std::fs::read_to_string(e.path().join("robot.yaml"))
                    .is_ok_and(|t| t.contains("stage: over"))
            })
            .count()
    };
    challenge(&mut local, 1, start);
    assert_eq!(over(&local), 1);
    // Looked at twice: the first look of a day prunes the journal.
    robot_read_calls(&local, start + 61 * day);
    let one_over = robot_read_calls(&local, start + 61 * day + 60);
    challenge(&mut local, 4, start + 62 * day);
    assert_eq!(over(&local), 5);
    robot_read_calls(&local, start + 123 * day);
    let five_over = robot_read_calls(&local, start + 123 * day + 60);
    assert!(
        five_over <= one_over + 3,
        "an empty look made {one_over} read calls with one game over in the store and {five_over} with five"
    );
}

/// The robot holds one identity for each player it ever started a game
/// for; the keys of a game's two parties were found by opening and
/// deriving every player's seed (2,021 read calls at 1,000 players, paid
/// by the first move of every process: every `--once` from cron). The
/// seated players' identities are looked at first.
#[cfg(target_os = "linux")]
#[test]
fn a_move_opens_the_seeds_of_its_own_players_only() {
    let mut local = Local::new();
    let (game, ann, bo) = ann_and_bo_at_khan(&mut local);
    let now = wall_clock();
    local.deliver(
        "ann@player.test",
        "move Ng3-f3 #0",
        &format!("token: {ann}"),
    );
    let few = robot_read_calls(&local, now);
    assert_eq!(replay(&local.record(&game)).plies(), 1);
    // Other players' identities, as games with them would have left.
    let identities = local.root.join("data/secrets/identities");
    assert_eq!(
        std::fs::read_dir(&identities).unwrap().count(),
        3,
        "the robot's, Ann's and Bo's identities in {}",
        identities.display()
    );
    for n in 0..60 {
        let path = identities.join(format!("p-{n:03}.seed"));
        std::fs::write(&path, format!("{:064x}\n", n + 1)).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        }
    }
    local.deliver("bo@player.test", "move Ae7-f6 #1", &format!("token: {bo}"));
    let many = robot_read_calls(&local, now + 60);
    assert_eq!(replay(&local.record(&game)).plies(), 2);
    assert!(
        many <= few + 3,
        "a move made {few} read calls with the two players' seeds in the store and {many} with sixty more"
    );
}

/// A forger who knows only Ann's address, with keys of his own, mails the
/// robot three cards naming her address under her `From:` (what anyone
/// may sign). The robot mails her three confirmations, which she rightly
/// ignores (docs/robot.md: "If you know nothing of this, ignore this
/// mail"). The next day Ann, with the program, mails her own card: her
/// key must still get its confirmation, else the forger's three mails a
/// month keep her key from ever being known (no register, no reminders,
/// no forfeit notice for her witnessed games), which "What they cannot"
/// in docs/robot.md, "Whose game it is", does not concede.
#[test]
fn a_forgers_cards_in_her_name_do_not_keep_her_own_key_from_being_confirmed() {
    let mut t = Referee::new();
    let now = wall_clock();
    let eml = |desk: &Desk| -> Vec<PathBuf> {
        std::fs::read_dir(&desk.outbox)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "eml"))
            .collect()
    };
    let mut log = String::new();
    for i in 0..3 {
        // Eve's desks, each with a key of her own, configured with Ann's
        // address: their cards name it and their mails say `From: ann`.
        let eve = Desk::new(&t.local.root, &format!("eve{i}"), "ann@player.test");
        eve.yam(&["identity", "send", "robot@yam.test"]);
        for mail in eml(&eve) {
            t.local.deliver_raw(&std::fs::read(mail).unwrap());
        }
        let at = (now + i * 60).to_string();
        log.push_str(&stderr(&robot_once(
            &t.local.config,
            &[("YAM_ROBOT_NOW", &at)],
        )));
    }
    assert_eq!(
        log.matches("a confirmation is mailed to ann@player.test")
            .count(),
        3,
        "setup: the forger's three keys each had a confirmation mailed to Ann:\n{log}"
    );
    for e in std::fs::read_dir(t.local.root.join("out"))
        .unwrap()
        .flatten()
    {
        std::fs::remove_file(e.path()).unwrap();
    }
    // Two days later Ann sends her own card, from her own address.
    t.ann.yam(&["identity", "send", "robot@yam.test"]);
    for mail in eml(&t.ann) {
        t.local.deliver_raw(&std::fs::read(mail).unwrap());
    }
    let later = (now + 2 * 86_400).to_string();
    let log = stderr(&robot_once(&t.local.config, &[("YAM_ROBOT_NOW", &later)]));
    let seed = std::fs::read_dir(t.ann.data.join("secrets/identities"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "seed"))
        .expect("Ann's seed");
    let bytes: [u8; 32] = hex::decode(std::fs::read_to_string(seed).unwrap().trim())
        .unwrap()
        .try_into()
        .unwrap();
    let mine = yam_referee::fair_play::sign::SigningKey::from_seed(&bytes)
        .public_key()
        .fingerprint()
        .to_string();
    let sent = t.local.sent();
    assert!(
        sent.iter().any(|(to, r)| to.contains("ann@player.test")
            && r.body.contains("confirm ")
            && r.body.contains(&mine)),
        "Ann's own card (key {mine}) got no confirmation: the forger's three waiting codes for her address block it for 30 days, renewable.\nrobot log:\n{log}\nsent: {sent:?}"
    );
}

/// A forger who knows Ann's address writes under subaddresses of it
/// (`ann+1@`, `ann+2@`, ...: RFC 5233, delivered to Ann's own mailbox by
/// Gmail, Fastmail, Outlook.com and Postfix's `recipient_delimiter`).
/// Each is "a new address" to the robot, so each is registered and
/// welcomed: Ann's mailbox gets a welcome for every forged mail, up to the
/// whole hour's `answers_per_hour`, where docs/robot.md ("Who can do
/// what") lets a forger who knows a player's address have her "told once
/// a day that someone wrote in her name".
#[test]
fn a_forger_cannot_flood_a_players_mailbox_with_welcomes_through_her_subaddresses() {
    let mut local = Local::new();
    for i in 0..10 {
        local.deliver(&format!("ann+{i}@player.test"), "help", "help");
    }
    let log = stderr(&local.run());
    let to_ann: Vec<String> = local
        .sent()
        .into_iter()
        .map(|(to, _)| to)
        .filter(|to| to.contains("ann@player.test") || to.contains("ann+"))
        .collect();
    assert!(
        to_ann.len() <= 1,
        "{} welcomes went to Ann's one mailbox in one look, one per forged subaddress: {to_ann:?}\n{log}",
        to_ann.len()
    );
}

/// A player whose configured address has a capital beyond ASCII
/// (`Ümit@...`, an internationalized address, RFC 6531) mails the robot
/// her card: the card names the address as her desk lower-cases it (ASCII
/// only: `Ümit@...`), but the robot keeps her `From` lower-cased whole
/// (`ümit@...`, docs/robot.md, "Mail hygiene"), so her own card is taken
/// for "a card for another address", and her key can never be confirmed
/// nor bound by card in a witnessed game.
#[test]
fn a_card_from_an_address_with_a_capital_beyond_ascii_names_its_sender() {
    let mut t = Referee::new();
    let umit = Desk::new(&t.local.root, "umit", "Ümit@player.test");
    umit.yam(&["identity", "send", "robot@yam.test"]);
    let mails: Vec<PathBuf> = std::fs::read_dir(&umit.outbox)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "eml"))
        .collect();
    assert_eq!(mails.len(), 1);
    t.local.deliver_raw(&std::fs::read(&mails[0]).unwrap());
    let log = stderr(&t.local.run());
    let sent = t.local.sent();
    assert!(
        sent.iter()
            .any(|(to, r)| to.to_lowercase().contains("mit@player.test")
                && r.body.contains("confirm ")),
        "Ümit's own card from her own address got no confirmation:\n{log}"
    );
}

/// Ann, who has the program, mails the robot her card and, in the same
/// look, her first plain mail (`help`). Her card's confirmation writes her
/// key book, which the welcome reads (the witnessed games of her keys), so
/// the welcome is decided again once the group is committed; but the first
/// decision had already counted the day's one welcome to her address
/// (`robot/rate/welcomed`, written as it decides, not by the plan), and the
/// second finds it spent: she is not registered, gets no token and no word,
/// and her mail is marked seen. docs/robot.md, "Authentication": "The first
/// mail from an address registers it: the robot draws a random 64-bit
/// token ... and mails the token to that address."
#[test]
fn a_newcomers_first_mail_decided_again_in_a_look_is_still_welcomed() {
    let mut t = Referee::new();
    t.ann.yam(&["identity", "send", "robot@yam.test"]);
    let mails: Vec<PathBuf> = std::fs::read_dir(&t.ann.outbox)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "eml"))
        .collect();
    assert_eq!(mails.len(), 1);
    t.local.deliver_raw(&std::fs::read(&mails[0]).unwrap());
    t.local.deliver("ann@player.test", "help", "help");
    let log = stderr(&t.local.run());
    assert!(
        log.contains("a confirmation is mailed to ann@player.test"),
        "setup: her card's confirmation: {log}"
    );
    let welcomed = t
        .local
        .sent()
        .into_iter()
        .any(|(to, r)| to.contains("ann@player.test") && token_in(&r.body).is_some());
    assert!(
        welcomed,
        "Ann's first mail got no welcome and no token, and is marked seen ({} waiting):\n{log}",
        t.local.waiting()
    );
}

/// The hour's answers to unauthenticated mail are spent (a flooder's
/// forged newcomers, or only a busy hour) when Ann and Bo open a witnessed
/// game: their cards bind them, but the confirmations are not mailed. The
/// binding is kept, so none of their later mails of the game, each with its
/// card, ever brings the confirmation: their keys are never known, and the
/// robot never reminds them nor tells the waiting one that a forfeit may be
/// claimed (docs/robot.md, "Whose game it is", 4), with no word to them.
/// A confirmation held back by a limit must go with a later mail.
#[test]
fn a_confirmation_the_hours_limit_held_back_is_mailed_with_a_later_mail_of_the_game() {
    let mut t = Referee::new();
    t.local
        .limits("  per_sender_per_hour: 1000\n  max_mail_bytes: 1048576\n  answers_per_hour: 1\n");
    t.local.deliver("stranger@flood.test", "help", "help");
    t.local.run();
    let game = "khan-ref-held";
    open_refereed_unconfirmed(&mut t, game, &["--game-type", "khan", "--ruleset", "basic"]);
    let confirmations = |t: &Referee| {
        t.local
            .sent()
            .into_iter()
            .filter(|(_, r)| r.body.contains("confirm "))
            .map(|(to, _)| to)
            .collect::<Vec<String>>()
    };
    assert!(
        confirmations(&t).is_empty(),
        "setup: the hour's one answer was spent"
    );
    // Hours later, each plays a turn, an hour and a minute apart (the
    // hour allows one answer, counted at the end of its minute); each
    // turn mail carries its card.
    let mut log = String::new();
    for n in 0..2 {
        let later = (wall_clock() + (3 + n) * 3660).to_string();
        let mover = if t.ann.status(game) == "YOU" {
            &t.ann
        } else {
            &t.bo
        };
        mover.yam(&["move", game, "--auto", "random", "--seed", &n.to_string()]);
        t.route();
        log.push_str(&stderr(&robot_once(
            &t.local.config,
            &[("YAM_ROBOT_NOW", &later)],
        )));
        t.ann.read();
        t.bo.read();
    }
    assert!(log.contains(&format!("witnessed {game}")), "{log}");
    let sent = confirmations(&t);
    assert!(
        sent.iter().any(|to| to.contains("ann@player.test"))
            && sent.iter().any(|to| to.contains("bo@player.test")),
        "no confirmation ever reaches the players after the one held back: {sent:?}\n{log}"
    );
}

/// Adversary: anyone who knows a witnessed game's id and one of its
/// players' addresses (both are in every mail of the game the players
/// copy to the robot; the From is not authenticated). Attack: one mail
/// "from" the player, of hundreds of tiny attachments, each
/// `[GameId "..."]` and nothing else. A mail with a record in it is a
/// witness mail, a member's is counted against no allowance, and every
/// candidate is taken in turn (`witness::take`): each copies the stored
/// record out of the run's cache and parses its events again
/// (`stored_events`), with the checkpoint, before its own few bytes fail
/// to verify. The robot's work for one mail is the number of attachments
/// times the witnessed record's size (a record grows to a megabyte and
/// more: `a_witnessed_game_whose_record_grows_past_a_megabyte_is_still_witnessed`),
/// and a witnessed game's mail may be 16 MiB (`max_game_mail_bytes`):
/// the look that reads it holds every other player's move for as long.
/// The same mail naming a game the robot does not keep costs a fraction.
#[cfg(target_os = "linux")]
#[test]
fn a_witness_mail_of_many_tiny_attachments_does_not_parse_the_stored_game_again_for_each() {
    let mut t = Referee::new();
    let game = "khan-tiny";
    open_refereed(&mut t, game, &["--game-type", "khan", "--ruleset", "basic"]);
    // A witnessed record of about 600 kB (six turns with a long comment).
    let comment = "a long note on the position ".repeat(3_700);
    let mut played = 0;
    for _ in 0..40 {
        if played == 6 {
            break;
        }
        let mover = match (t.ann.status(game).as_str(), t.bo.status(game).as_str()) {
            ("YOU", _) => &t.ann,
            (_, "YOU") => &t.bo,
            _ => {
                t.robot();
                t.ann.read();
                t.bo.read();
                continue;
            }
        };
        let out = mover.yam(&[
            "move",
            game,
            "--auto",
            "random",
            "--seed",
            &played.to_string(),
            "--comment",
            &comment,
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        played += 1;
        t.robot();
        t.ann.read();
        t.bo.read();
    }
    assert!(t.robot_record(game).len() > 500_000);
    let n = 300;
    let mail = |id: &str, seq: usize| {
        let mut text = format!(
            "From: ann@player.test\r\nTo: robot@yam.test\r\nSubject: {game}\r\n\
             Message-ID: <tiny.{seq}@player.test>\r\nMIME-Version: 1.0\r\n\
             Content-Type: multipart/mixed; boundary=\"B\"\r\n\r\n"
        );
        for _ in 0..n {
            text.push_str(&format!(
                "--B\r\nContent-Type: application/x-yam\r\n\r\n[GameId \"{id}\"]\r\n"
            ));
        }
        text.push_str("--B--\r\n");
        text.into_bytes()
    };
    let ticks = |local: &Local| robot_cpu_ticks(local).max(1);
    t.local.deliver_raw(&mail("no-such-game", 1));
    let unknown = ticks(&t.local);
    t.local.deliver_raw(&mail(game, 2));
    let claiming = ticks(&t.local);
    assert!(
        claiming < 4 * unknown + 60,
        "a mail of {n} one-line attachments naming the witnessed game took {claiming} ticks of CPU, \
         the same mail naming no game {unknown}: the witnessed record is parsed again for every attachment"
    );
}

/// Adversary: anyone who knows a witnessed game's id and one of its
/// players' addresses (both travel in every mail of the game; the From is
/// not authenticated). Attack: a 4 MB mail "from" the player, with
/// `X-Yam-Game` naming the game, made of 360,000 empty MIME parts. A
/// witnessed game's mail is read up to 16 MiB (`max_game_mail_bytes`,
/// past `max_mail_bytes`), and the mail parser keeps a structure for
/// every part: about 17 times the mail in memory (release build: 56 MB
/// for this 4 MB mail, then aborted under `ulimit -v` 64 MB; 277 MB for
/// 16 MiB of such parts). docs/robot.md's unit file sets `MemoryMax=64M`
/// ("Memory does not grow with the mailbox: 64 MB is ample"): there the
/// robot is killed on this mail, restarted, and killed again on the same
/// unread mail, and no game it referees moves on. The robot must read
/// (or refuse) such a mail within the 64 MB its documentation gives it.
#[cfg(unix)]
#[test]
fn a_witnessed_games_mail_of_countless_empty_parts_is_read_within_64_mb() {
    let mut t = Referee::new();
    let game = "khan-parts";
    open_refereed(&mut t, game, &["--game-type", "khan", "--ruleset", "basic"]);
    let mut raw = format!(
        "From: ann@player.test\r\nTo: robot@yam.test\r\nSubject: {game}\r\n\
         X-Yam-Game: {game} 1\r\nMessage-ID: <parts.1@player.test>\r\nMIME-Version: 1.0\r\n\
         Content-Type: multipart/mixed; boundary=\"b\"\r\n\r\n"
    );
    raw.push_str(&"--b\r\n\r\nhi\r\n".repeat(362_500));
    raw.push_str("--b--\r\n");
    t.local.deliver_raw(raw.as_bytes());
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 65536; exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_yam-e2e"))
        .args(["robot", "run", "--once", "--config"])
        .arg(&t.local.config)
        .current_dir(yam_tests::workspace())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the robot, given the 64 MB of its documented unit, died on a {} kB mail of empty parts ({:?}): {}",
        raw.len() / 1000,
        out.status,
        String::from_utf8_lossy(&out.stderr)
            .lines()
            .next()
            .unwrap_or_default()
    );
}

/// Ann and Bo registered, Ann with `over` open Khan challenges nobody
/// joined, expired, over, in her register; returns the store, their tokens
/// and the robot's clock after.
#[cfg(target_os = "linux")]
fn ann_with_games_over(over: usize) -> (Local, String, String, u64) {
    let day = 86_400;
    let mut local = Local::new();
    let ann = local.register("ann@player.test");
    let bo = local.register("bo@player.test");
    let start = wall_clock() + day;
    for _ in 0..over {
        local.deliver(
            "ann@player.test",
            "challenge khan",
            &format!("token: {ann}"),
        );
    }
    robot_once_at(&local, start);
    robot_once_at(&local, start + 60 * day);
    (local, ann, bo, start + 61 * day)
}

#[cfg(target_os = "linux")]
fn robot_once_at(local: &Local, at: u64) {
    let out = robot_once(&local.config, &[("YAM_ROBOT_NOW", &at.to_string())]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The only game of the store that is not over.
#[cfg(target_os = "linux")]
fn the_game_not_over(local: &Local) -> String {
    let live: Vec<String> = std::fs::read_dir(local.root.join("data/games"))
        .unwrap()
        .flatten()
        .filter(|e| {
            std::fs::read_to_string(e.path().join("robot.yaml"))
                .is_ok_and(|t| !t.contains("stage: over"))
        })
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(live.len(), 1, "one game not over: {live:?}");
    live[0].clone()
}

/// A player's register lists every game she ever started or joined, and
/// it only grows. A mail that names no game (a move written fresh, not a
/// reply in the game's thread: "the sender's only active game") found her
/// game by opening and parsing the bookkeeping of every game of her
/// register, the games long over included: every such move of a player
/// of years paid for her whole history, though the store keeps an index
/// of the games that are not over (`live/`).
#[cfg(target_os = "linux")]
#[test]
fn a_move_that_names_no_game_reads_no_game_of_its_player_that_is_over() {
    let reads = |over: usize| -> u64 {
        let (mut local, ann, bo, now) = ann_with_games_over(over);
        local.deliver(
            "ann@player.test",
            "challenge khan basic bo@player.test",
            &format!("token: {ann}"),
        );
        robot_once_at(&local, now);
        let game = the_game_not_over(&local);
        local.deliver(
            "bo@player.test",
            &format!("join {game}"),
            &format!("token: {bo}"),
        );
        robot_once_at(&local, now + 60);
        // Her move, written fresh: no game id, no thread.
        local.deliver(
            "ann@player.test",
            "move Ng3-f3 #0",
            &format!("token: {ann}"),
        );
        let calls = robot_read_calls(&local, now + 120);
        assert_eq!(
            replay(&local.record(&game)).plies(),
            1,
            "setup: the move is played in {game}"
        );
        calls
    };
    assert_reads_flat(
        reads,
        "a move that names no game",
        "of its player's games over in the store",
    );
}

/// An invitation is limited to `invitations_per_day` a player; they were
/// counted by opening and parsing the bookkeeping of every game of the
/// challenger's register, the games long over included (none of which
/// can be today's): each invitation of a player of years cost her whole
/// history.
#[cfg(target_os = "linux")]
#[test]
fn an_invitation_reads_no_game_of_its_challenger_that_is_over() {
    let reads = |over: usize| -> u64 {
        let (mut local, ann, _, now) = ann_with_games_over(over);
        robot_once_at(&local, now);
        local.deliver(
            "ann@player.test",
            "challenge khan basic bo@player.test",
            &format!("token: {ann}"),
        );
        let calls = robot_read_calls(&local, now + 60);
        the_game_not_over(&local);
        calls
    };
    assert_reads_flat(
        reads,
        "an invitation",
        "of its challenger's games over in the store",
    );
}

/// A registered player's own mail is never limited, and an open challenge
/// (no address: not an invitation) is not counted either; each is a game
/// that may still owe something (its expiry, `invitation_days` on), so it
/// is in the index of live games, and every look at the mailbox (every
/// poll, every `--once` from cron, every other player's move) opened and
/// parsed the bookkeeping of each, though none owes anything for two
/// weeks: one abuser's thousand challenges cost every look a thousand
/// reads (25 ms of CPU where a look with one mail takes 7, release
/// build), for as long as they stand, and their number has no bound. The
/// look also keeps each one read until its end: 50,000 cost a look 0.8 s
/// of CPU and 92 MB, past the 64 MB of the unit docs/robot.md gives (under
/// `ulimit -v` 64 MB the look aborts, so no reminder, forfeit or expiry is
/// ever decided again).
#[cfg(target_os = "linux")]
#[test]
fn an_empty_look_reads_no_game_that_owes_nothing_yet() {
    let reads = |open: usize| -> u64 {
        let mut local = Local::new();
        let carl = local.register("carl@player.test");
        let start = wall_clock() + 86_400;
        for _ in 0..open {
            local.deliver(
                "carl@player.test",
                "challenge khan",
                &format!("token: {carl}"),
            );
        }
        robot_once_at(&local, start);
        // The first look of a day prunes the journal.
        robot_read_calls(&local, start + 60);
        robot_read_calls(&local, start + 120)
    };
    assert_reads_flat(
        reads,
        "an empty look",
        "open challenge in the store, none of them due for fourteen days",
    );
}

/// The journal keeps a done marker for every mail of the last
/// `journal_days` (30): a robot that answers a few thousand mails a day
/// holds a hundred thousand. The plans not done are found by listing the
/// journal's whole folder, and that listing was taken at every look (and
/// once more at the start of every process: `Journal::open`), so every
/// poll and every `--once` from cron paid for the month's mail, though a
/// plan not done is rare: 73 ms of CPU and 195 ms on the clock for a look
/// with one mail at 100,000 markers, against 7 ms and 11 ms without
/// (release build). (The pruning, once a day, may list them.)
#[cfg(target_os = "linux")]
#[test]
fn a_look_does_not_list_every_done_marker_of_the_month() {
    let mut local = Local::new();
    local.register("ann@player.test");
    let few = robot_cpu_ticks(&local).min(robot_cpu_ticks(&local));
    // The markers of a month of mail, as the robot names them (a key of
    // 24 hex digits); written now, none is due for pruning.
    let journal = local.root.join("data/robot/journal/done");
    for n in 0..100_000u64 {
        std::fs::File::create(journal.join(format!("{n:024x}.done"))).unwrap();
    }
    let many = robot_cpu_ticks(&local).min(robot_cpu_ticks(&local));
    assert_eq!(local.waiting(), 0);
    assert!(
        many <= few + 3,
        "an empty look took {few} ticks of CPU (10 ms) with one done marker in the journal and {many} with 100,000 more"
    );
}

/// Every address that ever mailed the robot without a token keeps a count
/// file of its own (`robot/rate/sender/`, and `robot/rate/welcomed/` for
/// each welcome), which no pruning ever removes, though its times fall out
/// of their window within the hour (the day for a welcome) and the file
/// is then of no use. A flood of forged addresses, within the default
/// allowances (200 an hour, 60 answers), leaves up to 6,240 such files a
/// day, a 4 kB block each (25 MB a day, for ever; 10,003 addresses left
/// 80 MB of them here), and every start after a run that did not end
/// cleanly walks them all.
#[test]
fn the_counts_of_strangers_are_not_kept_once_their_window_is_past() {
    let mut local = Local::new();
    let now = wall_clock();
    for n in 0..20 {
        local.deliver(&format!("stranger{n}@flood.test"), "help", "help");
    }
    let at = |clock: u64| {
        let out = robot_once(&local.config, &[("YAM_ROBOT_NOW", &clock.to_string())]);
        assert!(out.status.success(), "{}", stderr(&out));
    };
    at(now);
    let counts = || {
        ["sender", "welcomed"]
            .iter()
            .map(|d| {
                std::fs::read_dir(local.root.join("data/robot/rate").join(d))
                    .map(|e| e.count())
                    .unwrap_or(0)
            })
            .sum::<usize>()
    };
    assert_eq!(counts(), 40, "setup: each stranger counted and welcomed");
    // Days on, with the daily pruning of the journal taken twice: no
    // count of theirs is within its window.
    at(now + 2 * 86_400 + 60);
    at(now + 4 * 86_400 + 60);
    assert_eq!(
        counts(),
        0,
        "the counts of twenty strangers, all out of their windows for days, are still kept"
    );
}

/// The CPU ticks (1/100 s) of one `yam robot run --once` on `local`'s
/// configuration: a count no machine's other load moves much, for
/// comparing the cost of one look at two sizes.
#[cfg(target_os = "linux")]
fn robot_cpu_ticks(local: &Local) -> u64 {
    yam_tests::cpu_ticks(
        yam_tests::yam_bin!().as_ref(),
        &[
            "robot".as_ref(),
            "run".as_ref(),
            "--once".as_ref(),
            "--config".as_ref(),
            local.config.as_os_str(),
        ],
    )
}

/// `reads(n)` (the read calls of one look with `n` of something in the
/// store) is the same at 21 as at 1, give or take three: the look's cost
/// does not grow with them. `what` names the look, `of` what grows.
#[cfg(target_os = "linux")]
fn assert_reads_flat(reads: impl Fn(usize) -> u64, what: &str, of: &str) {
    let few = reads(1);
    let many = reads(21);
    assert!(
        many <= few + 3,
        "{what} made {few} read calls with one {of} and {many} with twenty-one"
    );
}

/// A look that reads a game makes its hint (`live/ID@NEXT`) and then
/// removes its marker (`live/ID`), and docs/robot.md promises "a hint is
/// never the only thing between a due game and the look". But the hint is
/// made with its error ignored and the marker removed all the same: on a
/// disk out of space or inodes (a store of many small files: done markers,
/// rate counts), the game is left with neither, out of the index for good.
/// Its expiry, reminders and forfeit are never decided again, even once
/// the disk has room. (Run in a mount namespace, on a small tmpfs for
/// `live/` with one inode left, where `unshare` is allowed.)
#[cfg(target_os = "linux")]
#[test]
fn a_hint_that_cannot_be_made_does_not_take_the_game_out_of_the_index() {
    let day = 86_400;
    let mut local = Local::new();
    let carl = local.register("carl@player.test");
    let namespaces = std::process::Command::new("unshare")
        .args(["-Urm", "true"])
        .status()
        .is_ok_and(|s| s.success());
    if !namespaces {
        eprintln!("skipped: no mount namespace (unshare -Urm)");
        return;
    }
    let start = wall_clock() + day;
    robot_once_at(&local, start);
    local.deliver(
        "carl@player.test",
        "challenge khan",
        &format!("token: {carl}"),
    );
    // The look that takes his challenge, with one inode left where the
    // index lives: enough for the game's marker, none for its hint.
    let live = local.root.join("data/live");
    let script = r#"
live="$1"; bin="$2"; config="$3"; now="$4"
cp -a "$live" "$live.before" || exit 1
mount -t tmpfs -o nr_inodes=64 tmpfs "$live" || exit 1
cp -a "$live.before/." "$live/" || exit 1
i=0; while touch "$live/.fill$i" 2>/dev/null; do i=$((i+1)); done
rm "$live/.fill0"
YAM_ROBOT_NOW="$now" "$bin" robot run --once --config "$config"
rm -f "$live"/.fill*
mkdir "$live.after" && cp -a "$live/." "$live.after/"
"#;
    let out = std::process::Command::new("unshare")
        .args(["-Urm", "sh", "-c", script, "sh"])
        .arg(&live)
        .arg(yam_tests::yam_bin!())
        .arg(&local.config)
        .arg((start + 60).to_string())
        .output()
        .unwrap();
    let game = the_game_not_over(&local);
    std::fs::remove_dir_all(&live).unwrap();
    std::fs::rename(local.root.join("data/live.after"), &live).unwrap();
    std::fs::remove_dir_all(local.root.join("data/live.before")).unwrap();
    let index: Vec<String> = std::fs::read_dir(&live)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        index.iter().any(|n| n.starts_with(&game)),
        "the look that could not make {game}'s hint removed its marker: the index holds {index:?}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Fifteen days on, with room on the disk, the challenge expires.
    robot_once_at(&local, start + 15 * day);
    assert!(
        local
            .sent()
            .iter()
            .any(|(to, r)| to.contains("carl@") && r.subject.contains("expired")),
        "{game} is never looked at again: nobody joined it in fourteen days and it did not expire"
    );
}

/// Real life, or a forger who found one: a mail that kills the robot while
/// it is decided (killed for memory in the 64 MB of its unit, an abort).
/// Restarted (`Restart=always`), the robot read the same unread mail first
/// and died again, for ever, and no game it keeps moved on. A mail that
/// has killed two runs deciding it is set aside, unread, said in the log
/// once a run; every other mail is read as before. (The kill point
/// `after-read` stands for the death: it falls where a decision starts.)
#[test]
fn a_mail_that_kills_every_run_deciding_it_is_set_aside_and_the_rest_goes_on() {
    let mut local = Local::new();
    let ann = local.register("ann@player.test");
    let bo = local.register("bo@player.test");
    local.deliver("ann@player.test", "list", &format!("token: {ann}"));
    for run in 1..=2 {
        let killed = robot_once(&local.config, &[("YAM_ROBOT_KILL_AT", "after-read")]);
        assert!(!killed.status.success(), "setup: run {run} was not killed");
    }
    let answered = local.sent().len();
    local.deliver("bo@player.test", "list", &format!("token: {bo}"));
    let out = robot_once(&local.config, &[]);
    let log = stderr(&out);
    assert!(out.status.success(), "{log}");
    assert!(
        log.contains("set aside, unread: 2 runs died deciding it"),
        "{log}"
    );
    let sent = local.sent();
    assert_eq!(sent.len(), answered + 1, "{log}");
    assert!(sent.iter().any(|(to, _)| to.contains("bo@")), "{log}");
    assert_eq!(local.waiting(), 1, "Ann's mail stays unread: {log}");
    // A mail that killed one run only is decided at the next.
    local.deliver("bo@player.test", "help", &format!("token: {bo}"));
    let killed = robot_once(&local.config, &[("YAM_ROBOT_KILL_AT", "after-read")]);
    assert!(!killed.status.success());
    let log = stderr(&robot_once(&local.config, &[]));
    assert_eq!(local.waiting(), 1, "Bo's second mail is decided: {log}");
}

/// Ann challenges `invited` at the robot; the invited player answers
/// `join` with the invitation's token from `joins_from`, another form of
/// the same mailbox. docs/mail.md, "One normal form for an address": the
/// robot's players and tokens are filed under the normal form, which
/// should make the two forms one player.
fn join_from_another_form(invited: &str, joins_from: &str) {
    let mut local = Local::new();
    let ann = local.register("ann@player.test");
    local.deliver(
        "ann@player.test",
        &format!("challenge khan basic {invited}"),
        &format!("token: {ann}"),
    );
    local.run();
    let game = game_of(&local);
    let invitation = local
        .sent()
        .into_iter()
        .map(|(_, r)| r)
        .find(|r| r.subject.contains("challenges you"))
        .expect("the invitation is mailed");
    let token = token_in(&invitation.body).expect("the invitation carries the token");
    local.deliver(
        joins_from,
        &format!("join {game}"),
        &format!("token: {token}"),
    );
    let log = stderr(&local.run());
    let answers: Vec<String> = local
        .sent()
        .into_iter()
        .map(|(_, r)| r)
        .filter(|r| !r.subject.contains("challenges you"))
        .map(|r| {
            let head: Vec<&str> = r.body.lines().take(3).collect();
            format!("{}\n{}", r.subject, head.join("\n"))
        })
        .collect();
    assert!(
        answers
            .iter()
            .any(|a| a.contains(&format!("> join {game}")) && a.contains("The game begins")),
        "invited as {invited:?}, joining from {joins_from:?} with the invitation's token, the player could not take her seat:\nlog: {log}\nanswers:\n{}",
        answers.join("\n----\n")
    );
}

/// Real life: Ann invites Bo at `bo@bücher.example`, as his business card
/// writes it; his mail reaches the robot from `bo@xn--bcher-kva.example`,
/// the ASCII form of the same domain (RFC 5890), which his mail program or
/// a gateway without SMTPUTF8 writes. The invitation and its token reached
/// him (both forms are one mailbox), but his `join` with that token is
/// refused: the robot files the two forms as two players.
#[test]
fn an_invited_address_in_an_international_domain_can_join_from_its_ascii_form() {
    join_from_another_form("bo@bücher.example", "bo@xn--bcher-kva.example");
}

/// Real life: Ann invites Ümit as `ümit@player.test` (NFC); Ümit's mail
/// program writes her address in NFD once (`u` and U+0308, as macOS file
/// names hold it; one address to a person, RFC 6532 3.1 asks for NFC).
/// Her `join` with the invitation's token is refused.
#[test]
fn an_invited_address_can_join_from_its_nfd_form() {
    join_from_another_form("ümit@player.test", "u\u{308}mit@player.test");
}

/// Real life: Ann invites Nikos from his business card in capitals,
/// `ΝΙΚΟΣ.Π@player.test`; his mail program writes `νικος.π@player.test`
/// (a word-final sigma). The case of an address never matters
/// (docs/mail.md), but `to_lowercase` lowers that `Σ` (followed by a dot
/// and a letter) to `σ`: his own address and its capitals are two players,
/// and his `join` with the invitation's token is refused.
#[test]
fn an_invited_address_in_greek_capitals_can_join_from_its_lower_case() {
    join_from_another_form("ΝΙΚΟΣ.Π@player.test", "νικος.π@player.test");
}

/// Adversary: anyone, with a key of her own. Attack: a card naming an
/// address that holds bidirectional controls (`U+202E`, right-to-left
/// override) or zero-width marks, mailed to the robot from another
/// address. A card refuses white space and control characters in its
/// address, but not the invisible ones `cards::is_unprintable` names
/// (`extract::sender_address` says "a card's address never holds such
/// characters (cards refuse them)"), and the robot logs the card's
/// address as it stands ("a card for ..., not the sender"): the override
/// reaches the operator's terminal and reorders the log line, which
/// docs/mail.md's cleaning of someone else's text is there to prevent.
#[test]
fn a_card_naming_an_address_with_invisible_controls_is_not_logged_as_it_stands() {
    let mut t = Referee::new();
    t.bo.yam(&["identity", "send", "robot@yam.test"]);
    let card =
        t.bo.card_naming("ann@player.test\u{202E}\u{200B}tset.reyalp@ob");
    let mail = yam_cli::mail::compose::compose(&yam_cli::mail::compose::TurnMail {
        from: "bo@player.test".parse().unwrap(),
        to: vec!["robot@yam.test".parse().unwrap()],
        game_name: "card",
        game_id: "card",
        ply: 0,
        players: &["Bo".to_owned()],
        body: "My card.",
        turn: card.as_bytes(),
        record: card.as_bytes(),
        message_id: "card.1@player.test".into(),
        thread: &[],
        automatic: yam_cli::mail::compose::Automatic::No,
        referee: None,
        card: None,
        reminder: None,
        picture: None,
    })
    .unwrap()
    .formatted();
    t.local.deliver_raw(&mail);
    let out = t.local.run();
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr(&out));
    // The card is refused (its address holds characters no address has)
    // or taken as one for another address; either way, its characters are
    // never printed as they stand.
    assert!(said.contains("bo@player.test"), "{said}");
    let shown: Vec<char> = said
        .chars()
        .filter(|&c| yam_cli::mail::cards::is_unprintable(c) && c != '\n')
        .collect();
    assert!(
        shown.is_empty(),
        "the robot's log carries invisible controls from a stranger's card: {shown:?}\n{said:?}"
    );
}

/// Adversary: anyone, with a key of her own. Attack: the card of
/// `a_card_naming_an_address_with_invisible_controls_is_not_logged_as_it_stands`
/// again, but its address hides its difference in invisible characters
/// that `cards::is_unprintable` does not list: U+061C ARABIC LETTER MARK
/// (a bidirectional mark, as U+200F is) and the tag characters
/// U+E0001..U+E007F (drawn as nothing). The card is taken, and the robot
/// logs "a card for ann@player.test, not the sender" with them as they
/// stand: on the operator's terminal the address is Ann's, letter for
/// letter. docs/robot.md and docs/mail.md promise every control or
/// invisible character in an address the log prints replaced by U+FFFD.
#[test]
fn a_card_naming_an_address_with_tag_characters_or_a_letter_mark_is_not_logged_as_it_stands() {
    let mut t = Referee::new();
    t.bo.yam(&["identity", "send", "robot@yam.test"]);
    let card =
        t.bo.card_naming("ann\u{E0041}\u{E0001}@player.test\u{061C}");
    let mail = yam_cli::mail::compose::compose(&yam_cli::mail::compose::TurnMail {
        from: "bo@player.test".parse().unwrap(),
        to: vec!["robot@yam.test".parse().unwrap()],
        game_name: "card",
        game_id: "card",
        ply: 0,
        players: &["Bo".to_owned()],
        body: "My card.",
        turn: card.as_bytes(),
        record: card.as_bytes(),
        message_id: "card.1@player.test".into(),
        thread: &[],
        automatic: yam_cli::mail::compose::Automatic::No,
        referee: None,
        card: None,
        reminder: None,
        picture: None,
    })
    .unwrap()
    .formatted();
    t.local.deliver_raw(&mail);
    let out = t.local.run();
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr(&out));
    assert!(said.contains("bo@player.test"), "{said}");
    let shown = yam_tests::tag_characters_and_letter_marks(&said);
    assert!(
        shown.is_empty(),
        "the robot's log carries invisible characters from a stranger's card: {shown:?}\n{said:?}"
    );
}

/// Adversary: a stranger, who writes the `From` of a mail to the robot.
/// Attack: a quoted local part (`<"...">@domain`, RFC 5322) holding tag
/// characters (U+E0001..U+E007F, drawn as nothing) and U+061C ARABIC
/// LETTER MARK (a bidirectional mark). Such an address is one lettre can
/// mail, `extract::sender_address` replaces only what `is_unprintable`
/// lists, and the robot logs "registered ..." with the characters as they
/// stand. docs/robot.md: the sender's address is kept with "every control
/// or invisible character replaced by U+FFFD ... so a forged `From` cannot
/// put escape codes into the log an operator reads on a terminal".
#[test]
fn a_from_with_tag_characters_in_a_quoted_local_part_is_not_logged_as_it_stands() {
    let mut local = Local::new();
    local.deliver_raw(
        "From: <\"ann\u{E0001}\u{E0041}\u{E007F}\u{061C}\"@player.test>\r\nTo: robot@yam.test\r\n\
         Message-ID: <tags.1@player.test>\r\nSubject: help\r\n\r\nhelp\r\n"
            .as_bytes(),
    );
    let out = local.run();
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr(&out));
    assert!(said.contains("player.test"), "{said}");
    let shown = yam_tests::tag_characters_and_letter_marks(&said);
    assert!(
        shown.is_empty(),
        "the robot's log carries invisible characters from a stranger's From: {shown:?}\n{said:?}"
    );
}

/// The robot's store as an earlier build (before the forty-first step's
/// normal form) left it for a player at `unicode`, whose mail reached the
/// robot from `written`: every file naming her names `written` (the form
/// `earlier_normal` gave: trimmed, lower case), and the files keyed by her
/// address are under the key of that form. `player`: her own files too
/// (else only the games' bookkeeping, as after her player file was moved
/// to her new form: "filed under the new form with her next change").
fn as_an_earlier_build_filed(local: &Local, unicode: &str, written: &str, player: bool) {
    let key =
        |a: &str| yam_referee::fair_play::hash::Hash32::of(a.as_bytes()).to_hex()[..16].to_owned();
    let (new, earlier) = (key(unicode), key(written));
    let data = local.root.join("data");
    // An earlier build had not brought its store to the normal form.
    let _ = std::fs::remove_file(data.join("robot/addresses.normal"));
    let rewrite = |path: &std::path::Path| {
        let text = std::fs::read_to_string(path).unwrap();
        std::fs::write(path, text.replace(unicode, written)).unwrap();
    };
    for game in std::fs::read_dir(data.join("games")).unwrap().flatten() {
        rewrite(&game.path().join("robot.yaml"));
    }
    if !player {
        return;
    }
    let players = data.join("robot/players");
    rewrite(&players.join(format!("{new}.yaml")));
    std::fs::rename(
        players.join(format!("{new}.yaml")),
        players.join(format!("{earlier}.yaml")),
    )
    .unwrap();
    let register = data.join("robot/register");
    std::fs::rename(register.join(&new), register.join(&earlier)).unwrap();
    for counts in std::fs::read_dir(data.join("robot/rate"))
        .unwrap()
        .flatten()
    {
        if counts.path().join(&new).exists() {
            std::fs::rename(counts.path().join(&new), counts.path().join(&earlier)).unwrap();
        }
    }
}

/// Ann and Bo at Khan, Bo writing from `bo@xn--bcher-kva.example`, Ann's
/// first move played, and the store then made as an earlier build left it
/// (`as_an_earlier_build_filed`): the robot, the game's id and Bo's token.
fn khan_with_bo_filed_by_an_earlier_build(player: bool) -> (Local, String, String) {
    let mut local = Local::new();
    let ann = local.register("ann@player.test");
    let written = "bo@xn--bcher-kva.example";
    local.deliver(written, "help", "help");
    local.run();
    let bo = local
        .sent()
        .into_iter()
        .filter(|(to, _)| !to.contains("ann"))
        .find_map(|(_, r)| token_in(&r.body))
        .expect("Bo's token");
    local.says(
        "ann@player.test",
        &ann,
        &format!("challenge khan basic {written}"),
    );
    let game = game_of(&local);
    local.says(written, &bo, &format!("join {game}"));
    local.says("ann@player.test", &ann, "move Ng3-f3 #0");
    assert_eq!(replay(&local.record(&game)).plies(), 1);
    // The upgrade: the store is as the earlier build wrote it.
    as_an_earlier_build_filed(&local, "bo@bücher.example", written, player);
    (local, game, bo)
}

/// What the robot mailed about `what` (the first lines of each), and its log.
fn told_about(local: &Local, what: &str, log: &str) -> String {
    let answers: Vec<String> = local
        .sent()
        .into_iter()
        .map(|(_, r)| r)
        .filter(|r| r.body.contains(what))
        .map(|r| r.body.lines().take(4).collect::<Vec<_>>().join("\n"))
        .collect();
    format!("answers:\n{}\nlog: {log}", answers.join("\n----\n"))
}

/// Real life: Bo's domain is international, and his mail reaches the
/// robot in its ASCII form (`bo@xn--bcher-kva.example`), as a mail
/// program or gateway without SMTPUTF8 writes it. He registered and
/// joined Ann's game with an earlier build, which filed him (his player
/// file, his register, his rate counts) and the game's seats under that
/// form. The robot is upgraded mid-game. docs/mail.md, "One normal form
/// for an address": "A robot player filed by an earlier build under the
/// form it knew is found under it" (`auth::earlier_address_key`). He is
/// not: `Robot::player` looks for the earlier key of the sender's address
/// in its *new* normal form (`bo@bücher.example`), which is that form
/// again, so the fallback never finds anyone a mail names. Bo's token is
/// refused, he is registered anew as a stranger ("registered
/// bo@bücher.example"), and his move is not played, nor any later one,
/// until the silence forfeits him.
#[test]
fn a_player_of_an_earlier_build_at_an_international_domain_still_moves_in_his_game() {
    let (mut local, game, bo) = khan_with_bo_filed_by_an_earlier_build(true);
    local.deliver(
        "bo@xn--bcher-kva.example",
        "move Ae7-f6 #1",
        &format!("token: {bo}"),
    );
    let log = stderr(&local.run());
    assert_eq!(
        replay(&local.record(&game)).plies(),
        2,
        "Bo, filed by an earlier build under his domain's ASCII form, is no longer known after the upgrade: his move is not played:\n{}",
        told_about(&local, "Ae7-f6", &log)
    );
    // Moved once, the earlier files kept aside, and said.
    let backup = local
        .root
        .join("data/robot/before-normal-addresses/robot/players");
    assert_eq!(std::fs::read_dir(backup).unwrap().count(), 1, "{log}");
    assert!(log.contains("brought to the normal form"), "{log}");
}

/// The same upgrade, once Bo's player file is where the normal form puts
/// it (docs/mail.md: an earlier build's player "is found under it and
/// filed under the new form with her next change"): his token is taken,
/// but the game's bookkeeping (`robot.yaml`: its seats, the invited
/// address) still names him in the earlier form, and `Robot::member`
/// compares the seats with his sender's normal form byte for byte, as
/// does every other seat comparison of the robot (`meta.challenger ==
/// from`, `meta.invited`, a witnessed game's `bound`). His move is refused.
#[test]
fn a_player_of_an_earlier_build_found_under_his_new_form_still_moves_in_his_game() {
    let (mut local, game, bo) = khan_with_bo_filed_by_an_earlier_build(false);
    local.deliver(
        "bo@xn--bcher-kva.example",
        "move Ae7-f6 #1",
        &format!("token: {bo}"),
    );
    let log = stderr(&local.run());
    assert_eq!(
        replay(&local.record(&game)).plies(),
        2,
        "Bo's game, whose seats an earlier build wrote in his domain's ASCII form, refuses his move after the upgrade:\n{}",
        told_about(&local, "Ae7-f6", &log)
    );
}
