//! The robot against the real mail servers of `scripts/test.sh` (SMTP with
//! AUTH, Dovecot IMAP): players write plain mails by SMTP, the robot reads
//! its mailbox by IMAP and answers by SMTP, players read the answers from
//! their Maildirs, and every record the robot sent verifies offline with
//! `yam verify`.

mod robot_common;

use std::path::{Path, PathBuf};

use robot_common::{Received, game_in, mail, maildir_files, parse, replay, robot_once, token_in};
use yam_cli::mail::transport::{Outgoing, Security, send};
use yam_notation::GameKind;
use yam_referee::fair_play::turn::{EventBody, Evidence, MoveToken};
use yam_referee::replay::{GameReplay, NoChance, load_ruleset, start};

use yam_tests::{MailServers as Servers, fresh_user, mail_servers as servers};

/// A robot on its own mailbox, with its own store.
struct Robot {
    _data: tempfile::TempDir,
    config: PathBuf,
    address: String,
}

impl Robot {
    fn new(s: &Servers) -> Robot {
        let data = tempfile::tempdir().unwrap();
        let user = fresh_user("robot");
        let config = data.path().join("robot.yaml");
        std::fs::write(
            &config,
            format!(
                "robot:\n  address: {user}@example.org\n  name: Yam robot\ndata: {}\n\
                 outgoing:\n  smtp:\n    host: 127.0.0.1\n    port: {}\n    security: none\n    user: {}\n    password: {}\n\
                 incoming:\n  imap:\n    host: 127.0.0.1\n    port: {}\n    tls: false\n    user: {user}\n    password: {}\n\
                 limits:\n  per_sender_per_hour: 100000\n",
                data.path().join("store").display(),
                s.smtp_port,
                s.smtp_user,
                s.smtp_password,
                s.imap_port,
                s.imap_password
            ),
        )
        .unwrap();
        Robot {
            _data: data,
            config,
            address: format!("{user}@example.org"),
        }
    }

    fn run(&self) -> String {
        let out = robot_once(&self.config, &[]);
        let log = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{log}");
        log
    }
}

/// A player without the program: plain mails out, answers in a Maildir.
struct Player {
    address: String,
    maildir: PathBuf,
    outgoing: Outgoing,
    robot: String,
    read: usize,
    sent: usize,
    token: String,
}

impl Player {
    fn new(s: &Servers, prefix: &str, robot: &Robot) -> Player {
        let user = fresh_user(prefix);
        Player {
            address: format!("{user}@example.org"),
            maildir: Path::new(&s.dir).join("home").join(&user).join("Maildir"),
            outgoing: Outgoing::Smtp {
                host: "127.0.0.1".into(),
                port: s.smtp_port,
                security: Security::None,
                auth: Some((s.smtp_user.clone(), s.smtp_password.clone())),
            },
            robot: robot.address.clone(),
            read: 0,
            sent: 0,
            token: String::new(),
        }
    }

    fn send(&mut self, subject: &str, body: &str) {
        self.sent += 1;
        let id = format!(
            "{}.{}@example.org",
            self.sent,
            self.address.replace('@', ".")
        );
        let body = format!("token: {}\n{body}\n", self.token);
        send(
            &self.outgoing,
            &mail(&self.address, &self.robot, &id, subject, &body),
        )
        .unwrap();
    }

    /// The answers that arrived since the last look.
    fn inbox(&mut self) -> Vec<Received> {
        let files = maildir_files(&self.maildir);
        let new: Vec<Received> = files[self.read.min(files.len())..]
            .iter()
            .map(|p| parse(&std::fs::read(p).unwrap()))
            .collect();
        self.read = files.len();
        new
    }

    fn register(&mut self, robot: &Robot) {
        self.send("help", "help");
        robot.run();
        let answers = self.inbox();
        self.token = answers
            .iter()
            .find_map(|r| token_in(&r.body))
            .unwrap_or_else(|| panic!("no token in {answers:#?}"));
    }
}

/// `yam verify` on a record the robot sent.
fn verify_offline(record: &str, dir: &Path, name: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, record).unwrap();
    let out = yam_tests::yam!().arg("verify").arg(&path).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("verified"), "{text}");
    text
}

/// A complete Rescue Khan game, decided in advance: a win taken whenever
/// one is legal, otherwise a move from a small generator.
fn rescue_khan_game() -> Vec<String> {
    let ruleset = load_ruleset(GameKind::Khan, "rescue-khan").unwrap();
    for seed in 1u64..200 {
        let mut game: Box<dyn GameReplay> = start(&ruleset).unwrap();
        let mut moves = Vec::new();
        let mut state = seed;
        while game.outcome().is_none() && moves.len() < 400 {
            let legal = game.legal_moves();
            let winning = legal.iter().find(|m| {
                let mut g = game.clone();
                g.play(&[MoveToken::new(m.as_str()).unwrap()], &mut NoChance)
                    .is_ok()
                    && g.outcome().is_some()
            });
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let pick = winning
                .cloned()
                .unwrap_or_else(|| legal[(state >> 33) as usize % legal.len()].clone());
            game.play(&[MoveToken::new(pick.as_str()).unwrap()], &mut NoChance)
                .unwrap();
            moves.push(pick);
        }
        if game.outcome().is_some() {
            return moves;
        }
    }
    panic!("no short game found")
}

#[test]
fn a_complete_rescue_khan_game_between_two_addresses_refereed_by_the_robot() {
    let s = servers();
    let robot = Robot::new(&s);
    let mut ann = Player::new(&s, "ann", &robot);
    let mut bo = Player::new(&s, "bo", &robot);
    ann.register(&robot);
    bo.register(&robot);
    ann.send(&format!("challenge khan rescue-khan {}", bo.address), "");
    robot.run();
    let id = ann
        .inbox()
        .iter()
        .find_map(|r| game_in(&r.body))
        .expect("a game id");
    let invitation = bo.inbox();
    assert!(
        invitation
            .iter()
            .any(|r| r.body.contains(&format!("join {id}")))
    );
    bo.send(&format!("join {id}"), "");
    robot.run();
    assert!(
        ann.inbox()
            .iter()
            .any(|r| r.body.contains("The game begins"))
    );
    assert!(
        bo.inbox()
            .iter()
            .any(|r| r.body.contains("The game begins"))
    );

    // The whole game, one mail per move, each guarded by its ply; the
    // robot reads them all in one run, in the order they arrived.
    let moves = rescue_khan_game();
    for (ply, m) in moves.iter().enumerate() {
        let player = if ply % 2 == 0 { &mut ann } else { &mut bo };
        player.send(&format!("move {id} {m} #{ply}"), "");
    }
    let log = robot.run();
    assert!(!log.contains("Refused"), "{log}");
    let last = ann
        .inbox()
        .into_iter()
        .chain(bo.inbox())
        .last()
        .expect("answers");
    assert!(last.body.contains("Game over"), "{}", last.body);
    let record = last.record.expect("the record is attached");
    let r = replay(&record);
    assert_eq!(r.plies() as usize, moves.len());
    assert!(r.ending().is_some());
    let dir = tempfile::tempdir().unwrap();
    let report = verify_offline(&record, dir.path(), "rescue.yam");
    assert!(report.contains("verified (robot mode)"), "{report}");
    assert!(report.contains("robot mode guarantees"), "{report}");
}

/// Plays a Genghis Khan game by mail: up to `max_mails` mails of the
/// greedy choice, then, when `abandon`, the player's resignation.
fn genghis_khan_by_mail(max_mails: usize, abandon: bool) -> (String, Received) {
    let s = servers();
    let robot = Robot::new(&s);
    let mut pat = Player::new(&s, "pat", &robot);
    pat.register(&robot);
    pat.send("challenge genghis-khan", "seed: the opening words");
    robot.run();
    let id = game_in(&pat.inbox().pop().expect("an answer").body).expect("a game id");
    // The Foe rows are laid out by the first move mail, with its seed.
    pat.send("move start #0", "seed: the layout words");
    robot.run();
    let mut last = pat.inbox().pop().expect("an answer");
    assert!(last.body.contains("lays out the game"), "{}", last.body);
    for n in 0..max_mails {
        let record = last.record.clone().expect("a record");
        let r = replay(&record);
        if r.ending().is_some() {
            break;
        }
        let seat = r.seat_of(&r.to_move_key().unwrap()).unwrap();
        let yam_cli::game::autoplay::Intent::Orders(orders) =
            yam_cli::game::autoplay::choose(&r, seat, yam_referee::castle_siege::Policy::Eager, 1)
                .unwrap()
        else {
            panic!("Genghis Khan has orders only")
        };
        pat.send(
            &format!("move {} #{}", orders.join(" "), r.plies()),
            &format!("seed: my words number {n}"),
        );
        robot.run();
        last = pat.inbox().pop().expect("an answer");
        assert!(!last.body.contains("Refused"), "{}", last.body);
    }
    if abandon {
        pat.send("resign", "");
        robot.run();
        last = pat.inbox().pop().expect("an answer");
    }
    (id, last)
}

#[test]
fn a_genghis_khan_game_by_mail_against_the_robot_verifies_offline() {
    // A few cards drawn, then the player abandons: an ended game, short
    // enough for every CI run. The full game is the ignored test below.
    let (id, last) = genghis_khan_by_mail(4, true);
    assert!(last.body.contains("abandoned"), "{}", last.body);
    let record = last.record.expect("a record");
    let r = replay(&record);
    assert!(r.plies() >= 4, "{}", r.plies());
    assert!(r.ending().is_some());
    // Every draw's declaration carries the player's seed.
    let seeds: Vec<String> = r
        .events()
        .iter()
        .filter_map(|e| match &e.event.body {
            EventBody::Turn(t) => Some(
                t.evidence
                    .iter()
                    .filter_map(|ev| match ev {
                        Evidence::RollRequest(req) => {
                            Some(req.request.declaration.seed.as_str().to_owned())
                        }
                        _ => None,
                    })
                    .collect::<Vec<_>>(),
            ),
            _ => None,
        })
        .flatten()
        .collect();
    assert!(seeds.contains(&"the layout words".to_owned()), "{seeds:?}");
    for n in 0..4 {
        assert!(seeds.contains(&format!("my words number {n}")), "{seeds:?}");
    }
    let dir = tempfile::tempdir().unwrap();
    let report = verify_offline(&record, dir.path(), &format!("{id}.yam"));
    assert!(report.contains("robot"), "{report}");
}

#[test]
#[ignore = "a whole Genghis Khan game is some 220 mails: minutes in a debug build"]
fn a_complete_genghis_khan_game_by_mail_against_the_robot() {
    let (id, last) = genghis_khan_by_mail(1000, false);
    assert!(last.body.contains("Game over"), "{}", last.body);
    let record = last.record.expect("a record");
    assert!(replay(&record).ending().is_some());
    let dir = tempfile::tempdir().unwrap();
    verify_offline(&record, dir.path(), &format!("{id}.yam"));
}

/// A player with the program: a desk sending by SMTP and reading the
/// Maildir the SMTP server delivers into.
struct Desk {
    address: String,
    data: tempfile::TempDir,
}

impl Desk {
    fn new(s: &Servers, prefix: &str) -> Desk {
        let user = fresh_user(prefix);
        let address = format!("{user}@example.org");
        let data = tempfile::tempdir().unwrap();
        std::fs::write(
            data.path().join("config.yaml"),
            format!(
                "identity:\n  name: {prefix}\n  address: {address}\n  key: {prefix}\n\
                 outgoing:\n  smtp:\n    host: 127.0.0.1\n    port: {}\n    security: none\n    user: {}\n    password: {}\n\
                 incoming:\n  maildir:\n    path: {}/home/{user}/Maildir\n",
                s.smtp_port,
                s.smtp_user,
                s.smtp_password,
                s.dir
            ),
        )
        .unwrap();
        Desk { address, data }
    }

    fn yam(&self, args: &[&str]) -> String {
        let out = yam_tests::yam!()
            .args(args)
            .arg("--data-dir")
            .arg(self.data.path())
            .output()
            .unwrap();
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "yam {args:?}: {said}");
        said
    }

    fn status(&self, game: &str) -> String {
        self.yam(&["games"])
            .lines()
            .find(|l| l.split_whitespace().nth(1) == Some(game))
            .and_then(|l| l.split_whitespace().next())
            .unwrap_or("none")
            .to_owned()
    }

    fn record(&self, game: &str) -> String {
        std::fs::read_to_string(self.data.path().join("games").join(game).join("record.yam"))
            .unwrap()
    }
}

/// `moves` random moves of `game` between two desks the robot witnesses,
/// each desk reading after every look of the robot; the robot's logs,
/// which refuse nothing.
fn witness_moves(robot: &Robot, (ann, bo): (&Desk, &Desk), game: &str, moves: usize) -> String {
    let mut played = 0;
    let mut logs = String::new();
    for _ in 0..60 {
        let log = robot.run();
        assert!(!log.contains("refused"), "{log}");
        logs.push_str(&log);
        ann.yam(&["read"]);
        bo.yam(&["read"]);
        if played == moves {
            break;
        }
        let mover = match (ann.status(game).as_str(), bo.status(game).as_str()) {
            ("YOU", _) => ann,
            (_, "YOU") => bo,
            _ => continue,
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
    }
    assert_eq!(played, moves);
    logs
}

/// Ann, new to Bo, challenges him to basic Khan game `game` with the
/// robot as referee: the cards go both ways, the challenge follows, the
/// robot witnesses it (one event), and Bo reads it; what Bo's read said.
fn challenge_refereed_by(robot: &Robot, (ann, bo): (&Desk, &Desk), game: &str) -> String {
    ann.yam(&[
        "challenge",
        &bo.address,
        "--game-type",
        "khan",
        "--ruleset",
        "basic",
        "--id",
        game,
        "--referee",
        &robot.address,
    ]);
    assert!(bo.yam(&["read"]).contains("my card is sent in answer"));
    let said = ann.yam(&["read"]);
    assert!(said.contains("the waiting challenge"), "{said}");
    let log = robot.run();
    assert!(
        log.contains(&format!("witnessed {game}: 1 new event")),
        "{log}"
    );
    bo.yam(&["read"])
}

#[test]
fn two_players_with_their_own_keys_play_through_the_robot_as_referee() {
    let s = servers();
    let robot = Robot::new(&s);
    let (ann, bo) = (Desk::new(&s, "ann"), Desk::new(&s, "bo"));
    let game = format!("khan-{}", fresh_user("ref"));
    let said = challenge_refereed_by(&robot, (&ann, &bo), &game);
    assert!(said.contains("refereed by"), "{said}");
    bo.yam(&["accept", &game]);
    witness_moves(&robot, (&ann, &bo), &game, 6);
    let log = robot.run();
    assert!(!log.contains("refused"), "{log}");
    let store = robot.config.parent().unwrap().join("store");
    let witnessed =
        std::fs::read_to_string(store.join("games").join(&game).join("record.yam")).unwrap();
    assert_eq!(witnessed, ann.record(&game), "byte for byte");
    assert_eq!(witnessed, bo.record(&game), "byte for byte");
    verify_offline(&witnessed, store.as_path(), "witnessed.yam");
}

/// A witnessed game's mails carry its record twice and outgrow the
/// robot's `max_mail_bytes`; such a mail is read when its header, fetched
/// alone (IMAP `BODY.PEEK[HEADER]<0.N>`), names a witnessed game and comes
/// from one of its bound players. The local tests read a Maildir's file;
/// here Dovecot answers the partial fetch (`BODY[HEADER]<0> {n}`), and a
/// header read as empty (the test fails so when `fetch_head` returns
/// nothing) ignores every later mail, the witnessed copy frozen.
#[test]
fn a_witnessed_game_outgrowing_the_mail_limit_is_still_witnessed_over_imap() {
    let s = servers();
    let robot = Robot::new(&s);
    let (ann, bo) = (Desk::new(&s, "lann"), Desk::new(&s, "lbo"));
    let game = format!("khan-{}", fresh_user("large"));
    challenge_refereed_by(&robot, (&ann, &bo), &game);
    bo.yam(&["accept", &game]);
    // From here on the turn mails outgrow what a command may be: the
    // acceptance's own mail (which binds Bo's key to his address), and a
    // kilobyte, is the limit.
    let last_sent = |desk: &Desk| {
        std::fs::metadata(
            desk.data
                .path()
                .join("games")
                .join(&game)
                .join("last-sent.eml"),
        )
        .unwrap()
        .len()
    };
    let limit = last_sent(&bo) + 1024;
    let config = std::fs::read_to_string(&robot.config).unwrap();
    std::fs::write(
        &robot.config,
        config.replace(
            "limits:\n",
            &format!("limits:\n  max_mail_bytes: {limit}\n"),
        ),
    )
    .unwrap();
    let mut logs = witness_moves(&robot, (&ann, &bo), &game, 4);
    logs.push_str(&robot.run());
    assert!(
        last_sent(&ann) > limit && last_sent(&bo) > limit,
        "both players' last turn mails are over the limit of {limit} bytes"
    );
    assert!(!logs.contains("ignored a mail of"), "{logs}");
    let store = robot.config.parent().unwrap().join("store");
    let witnessed =
        std::fs::read_to_string(store.join("games").join(&game).join("record.yam")).unwrap();
    assert_eq!(witnessed, ann.record(&game), "byte for byte");
    assert_eq!(witnessed, bo.record(&game), "byte for byte");
}

/// Kills the watching robot when the test ends, passed or failed.
struct Watching(std::process::Child);

impl Drop for Watching {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn a_watching_robot_is_woken_by_imap_idle_not_by_its_poll() {
    let s = servers();
    let robot = Robot::new(&s);
    // A poll far longer than the test may wait: an answer within the
    // minute can only come from a wake in IDLE.
    let _watching = Watching(
        std::process::Command::new(yam_tests::yam_bin!())
            .args(["robot", "run", "--poll", "3600", "--config"])
            .arg(&robot.config)
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("yam runs"),
    );
    let wait_for = |player: &mut Player, what: &str| {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        loop {
            if let Some(r) = player.inbox().into_iter().find(|r| r.body.contains(what)) {
                return r;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "no answer containing {what:?} within a minute"
            );
            std::thread::sleep(std::time::Duration::from_millis(200));
        }
    };
    let mut ann = Player::new(&s, "idle-ann", &robot);
    ann.send("help", "help");
    let first = wait_for(&mut ann, "token");
    ann.token = token_in(&first.body).expect("a token");
    // The first cycle is long over: the robot now waits in IDLE.
    std::thread::sleep(std::time::Duration::from_secs(2));
    ann.send("list", "list");
    wait_for(&mut ann, "You have no games yet");
}
