//! What a player does to a mail game: challenge, accept, move, resign,
//! offer and answer, remind, claim. Each action is checked by the
//! referee's harness before anything is written or sent, and the game's
//! automatic steps (roll responses, the turn a completed roll resolves,
//! reveals) follow at once.

use crate::error::Error;
use crate::game::header::Header;
use crate::mail::compose::Automatic;
use yam_notation::{GameKind, RawGrammar, Record, record_to_string};
use yam_referee::castle_siege::game_replay::SetupStage;
use yam_referee::fair_play::chain::HashChain;
use yam_referee::fair_play::game_id::GameId;
use yam_referee::fair_play::sign::PublicKey;
use yam_referee::fair_play::turn::{Mode, SignedEvent};
use yam_referee::replay::RulesCatalog;
use yam_referee::signed::SignedReplay;
use yam_referee::signed::table::{
    self, ChallengeSpec, Duty, Prepared, SeatChoice, Signer, TableError, next_duty,
};
use yam_referee::signed::write::append_events;

use crate::game::autoplay::{self, Intent};
use crate::game::keys::{CHAIN_LENGTH, chain_length};
use crate::game::rulesets::RecordRulesets;
use crate::game::secrets::random_32;
use crate::game::setup::{reveal_setup, seal_setup, secret_placement, written_intent};

use super::desk::{Closed, Desk, Game, MailMeta, Stored, now, set_player_tags};
use crate::mail::cards::Contact;
use crate::mail::notice::{Notice, NoticeKind};

/// A challenge's settings.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct ChallengeSettings {
    /// The game (`khan`, `castle-siege`).
    pub game: String,
    /// A built-in ruleset name.
    pub ruleset: String,
    /// `first`, `second` or `drawn`.
    pub seats: String,
    /// The game id, if chosen.
    pub id: Option<String>,
    /// Days of silence before a forfeit may be claimed.
    pub forfeit_days: u32,
    /// An opening comment.
    pub comment: Option<String>,
    /// The referee robot's address, copied on every mail of the game.
    #[serde(default)]
    pub referee: Option<String>,
}

fn table_refusal(e: TableError) -> Error {
    match e {
        TableError::Rules(r) => {
            Error::invalid(format!("refused: {}\n  position: {}", r.reason, r.position))
        }
        other => Error::invalid(format!("refused: {other}")),
    }
}

fn game_id_of(replay: &SignedReplay) -> Result<GameId, Error> {
    replay
        .events()
        .first()
        .map(|e| e.event.game.clone())
        .ok_or_else(|| Error::usage("the record has no opening"))
}

/// My chain for `game`, if I have one.
fn my_chain(desk: &Desk, game: &GameId) -> Result<Option<HashChain>, Error> {
    desk.secrets
        .chain(game, &desk.me)
        .map_err(|e| Error::usage(e.to_string()))
}

/// The record tag that carries the days of silence after which a forfeit
/// may be claimed, as the challenge agreed them.
pub const FORFEIT_DAYS_TAG: &str = "ForfeitDays";

/// The days of silence a challenge's record agreed (`ForfeitDays`), if it
/// names a number of them (a record of an earlier Yam names none).
pub fn agreed_forfeit_days(text: &[u8]) -> Option<u32> {
    let (_, record) = crate::game::record::stored_events_and_record(text).ok()?;
    record?
        .tags
        .get(FORFEIT_DAYS_TAG)?
        .trim()
        .parse()
        .ok()
        .filter(|days| *days > 0)
}

/// Challenges `contact` to a game: the challenge is signed, stored and
/// mailed.
pub fn challenge(
    desk: &Desk,
    contact: &Contact,
    settings: &ChallengeSettings,
) -> Result<String, Error> {
    let kind = GameKind::from_name(&settings.game)
        .ok_or_else(|| Error::usage(format!("unknown game {:?}", settings.game)))?;
    let invited = contact.public_key().ok_or_else(|| {
        Error::usage(format!(
            "the key remembered for {} is damaged",
            contact.address
        ))
    })?;
    let place = desk.store.root().join("games");
    let rulesets = RecordRulesets::beside(&place.join("x.yam"));
    let ruleset = rulesets
        .load_ruleset(kind, &settings.ruleset)
        .map_err(|e| Error::usage(format!("--ruleset: {e}")))?;
    let date = super::today();
    let id_text = match &settings.id {
        Some(id) => id.clone(),
        None => {
            let random = random_32().map_err(|e| Error::usage(e.to_string()))?;
            format!(
                "{}-{}-{}",
                settings.game.to_ascii_lowercase(),
                date.replace('.', ""),
                hex::encode(&random[..4])
            )
        }
    };
    let id = GameId::new(id_text.clone()).map_err(|e| Error::usage(format!("--id: {e}")))?;
    let seats = match settings.seats.as_str() {
        "first" => SeatChoice::Chosen {
            challenger_first: true,
        },
        "second" => SeatChoice::Chosen {
            challenger_first: false,
        },
        "drawn" => SeatChoice::Drawn {
            salt: random_32().map_err(|e| Error::usage(e.to_string()))?,
        },
        other => {
            return Err(Error::usage(format!(
                "--seats {other}: expected first, second or drawn"
            )));
        }
    };
    let before =
        SignedReplay::start(&rulesets, &ruleset).map_err(|e| Error::usage(e.to_string()))?;
    if before.game().seats().len() != 2 {
        return Err(Error::usage(format!(
            "{kind} is a solo game: play it in hot-seat director mode or against the robot"
        )));
    }
    // Before any secret is drawn: a chain drawn for an id that turns out
    // taken stayed in the secrets, and the game of that id (another
    // player's challenge, not yet accepted) could never be accepted: a
    // chain is never reused.
    if desk.store.holds(id.as_str()) {
        return Err(Error::usage(format!(
            "game {id} exists already: choose another id (--id)"
        )));
    }
    let chain = desk
        .secrets
        .new_chain(&id, &desk.me, chain_length(kind, &ruleset))
        .map_err(|e| Error::usage(e.to_string()))?;
    if let SeatChoice::Drawn { salt } = seats {
        desk.secrets
            .store_seat_salt(&id, &desk.me, &salt)
            .map_err(|e| Error::usage(e.to_string()))?;
    }
    let (_, event) = table::challenge(
        &rulesets as &dyn RulesCatalog,
        &ChallengeSpec {
            game: id.clone(),
            ruleset: ruleset.clone(),
            mode: Mode::Peer,
            challenger: Signer {
                key: &desk.me.key,
                chain: Some(&chain),
            },
            invited,
            seats,
        },
    )
    .map_err(table_refusal)?;
    // The seats are known once the opening is complete; until then "?".
    let players = vec!["?".to_owned(); kind.player_tags().len()];
    let tags = Header {
        game: kind,
        ruleset: &ruleset,
        ruleset_tag: &ruleset.name,
        id: id.as_str(),
        date: &date,
        event: None,
        site: None,
        players: &players,
    }
    .tags();
    let mut record: Record<String> = Record::new(tags);
    let replay = append_events(&mut record, &before, &[event], settings.comment.as_deref())
        .map_err(|e| Error::usage(format!("internal error: {e}")))?;
    // The players' names are fixed now: mine, and the one on the invited
    // player's card. Chosen seats are named at once; drawn ones when the
    // draw is revealed, from these same names.
    let names = desk.names_of(&[desk.key(), invited]);
    set_player_tags(&mut record, &replay, |key| {
        names
            .get(&hex::encode(key.as_bytes()))
            .cloned()
            .unwrap_or_else(|| desk.name_of(key))
    });
    // The agreed days of silence travel with the challenge, so the invited
    // desk counts the same (without them it counted its default, and the
    // two desks named different forfeit days for one game). Unsigned, like
    // every tag: the invited player reads them before accepting, and a
    // record proves no time anyway (a director judges a claim).
    record
        .tags
        .set(FORFEIT_DAYS_TAG, settings.forfeit_days.to_string());
    let text = record_to_string::<RawGrammar>(&record);
    let mut game = create_game(
        desk,
        id.as_str(),
        text.as_bytes(),
        MailMeta {
            opponent: contact.address.clone(),
            thread: Vec::new(),
            changed: now(),
            silence: Default::default(),
            stepped_from: None,
            forfeit_days: settings.forfeit_days,
            reminders: 0,
            referee: settings.referee.clone(),
            outbox: None,
            closed: None,
            names,
            resignation_owed: None,
        },
    )?;
    let news = format!(
        "{} challenges {} to {kind} ({} ruleset, seats {}). Accept with:\n\n    yam accept {}",
        desk.config.identity.name, contact.name, ruleset.name, settings.seats, id_text
    );
    game.queue_mail(desk, &news, Automatic::No);
    game.save_meta()?;
    game.flush(desk).map_err(|e| unsent(&game, &e))?;
    Ok(id_text)
}

/// What a local action produced.
#[derive(Debug)]
pub struct Done {
    /// What to tell the player.
    pub lines: Vec<String>,
}

/// Appends `events` with `prose`, runs the automatic steps, saves, and
/// mails the opponent (unless `dry_run`).
fn commit(
    desk: &Desk,
    game: &mut Game,
    events: &[SignedEvent],
    prose: Option<&str>,
    news: String,
    dry_run: bool,
) -> Result<Done, Error> {
    game.append(events, prose, desk)?;
    let mut lines = vec![news.clone()];
    if dry_run {
        // Checked as the real thing would be, then dropped.
        game.checked_text()?;
        lines.push("dry run: nothing written, nothing sent".into());
        return Ok(Done { lines });
    }
    let mut news = news;
    for line in advance(desk, game)? {
        news.push('\n');
        news.push_str(&line);
        lines.push(line);
    }
    game.queue_mail(desk, &news, Automatic::No);
    game.save()?;
    game.flush(desk).map_err(|e| unsent(game, &e))?;
    lines.push(super::body::whose_turn(game, desk));
    Ok(Done { lines })
}

/// A step stored whose mail could not be sent: said so, with what sends
/// it later.
pub fn unsent(game: &Game, e: &Error) -> Error {
    Error::usage(format!(
        "game {}: the step is stored, but its mail could not be sent ({e}); the next `yam read`, `yam send` or `yam resend {}` sends it",
        game.id(),
        game.id()
    ))
}

/// The steps the game now asks of me that need no decision: a roll
/// response, the turn a completed roll of mine resolves, the seat draw's
/// reveal, a sealed setup's reveal. Returns what was done, in words.
pub fn advance(desk: &Desk, game: &mut Game) -> Result<Vec<String>, Error> {
    let me = desk.key();
    let id = game_id_of(&game.replay)?;
    let chain = my_chain(desk, &id)?;
    let mut said = Vec::new();
    // Each step adds one event; a game has a bounded number of automatic
    // steps in a row (at most a reveal, a response and a resolution).
    for _ in 0..8 {
        let Some(duty) = next_duty(&game.replay) else {
            break;
        };
        if duty.who() != me {
            break;
        }
        let signer = Signer {
            key: &desk.me.key,
            chain: chain.as_ref(),
        };
        let mut replay = game.replay.clone();
        let (event, words) = match duty {
            Duty::Respond(_) => (
                table::respond(&mut replay, &signer).map_err(table_refusal)?,
                "Yam answered the roll request with the next value of your chain.".to_owned(),
            ),
            Duty::CompleteRoll(_) => {
                let event = table::complete_roll(&mut replay, &signer).map_err(table_refusal)?;
                let moves = match &event.event.body {
                    yam_referee::fair_play::turn::EventBody::Turn(t) => t
                        .moves
                        .iter()
                        .map(|m| m.as_str().to_owned())
                        .collect::<Vec<_>>()
                        .join(" "),
                    _ => String::new(),
                };
                (
                    event,
                    format!("The dice are in; the turn is played: {moves}"),
                )
            }
            Duty::RevealSeats(_) => {
                let salt = desk
                    .secrets
                    .seat_salt(&id, &desk.me)
                    .map_err(|e| Error::usage(e.to_string()))?
                    .ok_or_else(|| {
                        Error::usage("the salt of the seat draw is not in the secrets directory")
                    })?;
                (
                    table::reveal_seats(&mut replay, &signer, salt).map_err(table_refusal)?,
                    "Yam revealed the seat draw's salt: the seats are settled.".to_owned(),
                )
            }
            Duty::Move(_)
                if autoplay::siege(&game.replay).and_then(|s| s.setup_stage())
                    == Some(SetupStage::Revealing) =>
            {
                (
                    reveal_setup(&mut replay, &desk.secrets, &desk.me, &signer, None)?,
                    "Yam revealed your sealed setup (CS-07 to CS-10).".to_owned(),
                )
            }
            _ => break,
        };
        game.append(&[event], None, desk)?;
        said.push(words);
    }
    Ok(said)
}

/// My resignation signed again on the game as it now stands: the one I
/// signed crossed my opponent's step in the mail and is void
/// (`docs/fair-play.md`, 3.10), but I resigned, and a resignation may be
/// signed at any point of a game not over. `None` when the game ended by
/// the step that stands (nothing is left to resign).
pub fn resign_again(desk: &Desk, game: &mut Game) -> Result<Option<String>, Error> {
    if next_duty(&game.replay).is_none() {
        return Ok(None);
    }
    let id = game_id_of(&game.replay)?;
    let chain = my_chain(desk, &id)?;
    let signer = Signer {
        key: &desk.me.key,
        chain: chain.as_ref(),
    };
    let mut replay = game.replay.clone();
    let event = table::resign(&mut replay, &signer).map_err(table_refusal)?;
    game.append(&[event], None, desk)?;
    Ok(Some(format!(
        "{} resigns (signed again after the step it crossed).",
        desk.config.identity.name
    )))
}

/// The game `id`, with my duty checked.
fn my_game(desk: &Desk, id: &str) -> Result<Game, Error> {
    let game = open_mail_game(desk, id)?;
    if let Some(closed) = &game.meta.closed {
        return Err(Error::invalid(format!(
            "refused: game {id}: {} Nothing more is played.",
            closed.describe()
        )));
    }
    Ok(game)
}

fn open_mail_game(desk: &Desk, id: &str) -> Result<Game, Error> {
    let game = Game::open(&desk.store, id)?;
    if game.meta.opponent.is_empty() {
        return Err(Error::usage(format!(
            "{id} is not a mail game of this data directory"
        )));
    }
    Ok(game)
}

/// Declines a challenge (the invited player, before accepting) or
/// withdraws one (its challenger, before the acceptance has arrived). The
/// signed notice is stored with the game, then mailed; a challenge still
/// waiting for the opponent's card is simply dropped.
pub fn close(desk: &Desk, id: &str, kind: NoticeKind, reason: &str) -> Result<Done, Error> {
    if kind == NoticeKind::Withdraw && !desk.store.holds(id) {
        // Looked at again under the lock of the waiting challenges: a read
        // that took the card may have been sending this one, and then it
        // is withdrawn as a challenge sent, not said "never sent".
        let pending = super::incoming::lock_pending(desk, false)?;
        if !desk.store.holds(id) {
            return drop_pending(desk, id);
        }
        drop(pending);
    }
    let mut game = my_game(desk, id)?;
    let me = desk.key();
    let Some(challenge) = game.replay.events().first() else {
        return Err(Error::usage("the record has no opening"));
    };
    let challenger = game.replay.challenge().map(|c| c.challenger.key);
    let allowed = match kind {
        NoticeKind::Decline => next_duty(&game.replay) == Some(Duty::Accept(me)),
        NoticeKind::Withdraw => {
            challenger == Some(me)
                && matches!(next_duty(&game.replay), Some(Duty::Accept(k)) if k != me)
        }
    };
    if !allowed {
        return Err(Error::invalid(match kind {
            NoticeKind::Decline => format!(
                "refused: only a challenge waiting for your acceptance can be declined; {} (once a game has started, `yam resign {id}` ends it)",
                super::body::whose_turn(&game, desk)
            ),
            NoticeKind::Withdraw => format!(
                "refused: only your own challenge, before its acceptance has arrived, can be withdrawn; {} (once a game has started, `yam resign {id}` ends it)",
                super::body::whose_turn(&game, desk)
            ),
        }));
    }
    let notice = Notice {
        kind,
        game: id.to_owned(),
        challenge: challenge.hash(),
        key: me,
        reason: reason.to_owned(),
    }
    .signed_text(&desk.me.key);
    let closed = Closed {
        kind,
        by: desk.config.identity.name.clone(),
        at: now(),
        reason: crate::mail::cards::clean_text(reason),
        notice,
        mine: true,
        sent: false,
    };
    let said = closed.describe();
    game.meta.closed = Some(closed);
    game.save_meta()?;
    game.send_notice(desk).map_err(|e| unsent(&game, &e))?;
    Ok(Done {
        lines: vec![
            said,
            format!("{} is told by mail.", desk.name_of(&other_party(&game, me))),
        ],
    })
}

/// The party of a two-player game who is not `me`.
fn other_party(game: &Game, me: PublicKey) -> PublicKey {
    game.replay
        .challenge()
        .map(|c| {
            std::iter::once(c.challenger.key)
                .chain(c.invited.iter().copied())
                .find(|k| *k != me)
                .unwrap_or(me)
        })
        .unwrap_or(me)
}

/// Withdraws a challenge that still waits for the opponent's card: it was
/// never sent, so it is dropped.
fn drop_pending(desk: &Desk, id: &str) -> Result<Done, Error> {
    let dir = desk.store.root().join("pending");
    let entries = match std::fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(_) => return Err(Error::usage(format!("{id}: no such game"))),
    };
    // A waiting challenge that cannot be read may be the one asked for:
    // said, rather than "no such game".
    let mut unreadable = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        let settings = std::fs::read_to_string(&path)
            .map_err(|e| e.to_string())
            .and_then(|text| {
                serde_yaml_ng::from_str::<ChallengeSettings>(&text).map_err(|e| e.to_string())
            });
        let settings = match settings {
            Ok(settings) => settings,
            Err(why) => {
                unreadable.push(format!("{}: cannot be read: {why}", path.display()));
                continue;
            }
        };
        if settings.id.as_deref() == Some(id) {
            std::fs::remove_file(&path).map_err(|e| Error::io(&path, "cannot remove", e))?;
            return Ok(Done {
                lines: vec![format!(
                    "the challenge {id} was waiting for the opponent's card and was never sent: it is dropped"
                )],
            });
        }
    }
    if !unreadable.is_empty() {
        return Err(Error::usage(format!(
            "{id}: no such game among the challenges waiting for a card that can be read; {}",
            unreadable.join("; ")
        )));
    }
    Err(Error::usage(format!("{id}: no such game")))
}

fn duty_refusal(desk: &Desk, game: &Game, wanted: &str) -> Error {
    Error::invalid(format!(
        "refused: {wanted}: {}",
        super::body::whose_turn(game, desk)
    ))
}

/// Accepts the challenge of game `id`.
pub fn accept(desk: &Desk, id: &str) -> Result<Done, Error> {
    let mut game = my_game(desk, id)?;
    if next_duty(&game.replay) != Some(Duty::Accept(desk.key())) {
        return Err(duty_refusal(desk, &game, "nothing to accept"));
    }
    let gid = game_id_of(&game.replay)?;
    let drawn = table::seats_await_reveal(&game.replay)
        || game.replay.challenge().is_some_and(|c| {
            matches!(
                c.roles,
                yam_referee::fair_play::turn::RoleChoice::Drawn { .. }
            )
        });
    let toss = if drawn {
        Some(random_32().map_err(|e| Error::usage(e.to_string()))?)
    } else {
        None
    };
    let chain = desk
        .secrets
        .new_chain(&gid, &desk.me, {
            let kind = game
                .record
                .game()
                .ok_or_else(|| Error::usage("the record names no game"))?;
            yam_referee::replay::load_ruleset(kind, game.replay.ruleset_name())
                .map_or(CHAIN_LENGTH, |r| chain_length(kind, &r))
        })
        .map_err(|e| Error::usage(e.to_string()))?;
    let signer = Signer {
        key: &desk.me.key,
        chain: Some(&chain),
    };
    let mut replay = game.replay.clone();
    let event = table::accept(&mut replay, &signer, toss).map_err(table_refusal)?;
    let news = format!("{} accepts the challenge.", desk.config.identity.name);
    let challenger = game.replay.challenge().map(|c| c.challenger.key);
    let mut done = commit(desk, &mut game, &[event], None, news, false)?;
    if let Some(key) = challenger {
        done.lines.insert(
            1,
            format!(
                "playing {}, key fingerprint {}",
                desk.name_of(&key),
                key.fingerprint()
            ),
        );
    }
    Ok(done)
}

/// What a move command asks.
#[derive(Debug, Default)]
pub struct MoveRequest {
    /// The tokens, as written.
    pub moves: Vec<String>,
    /// Prose after the turn.
    pub comment: Option<String>,
    /// Check and show, but write and send nothing.
    pub dry_run: bool,
    /// Offer a draw with the move.
    pub offer_draw: bool,
    /// Let the automatic player choose the turn: its policy and seed.
    pub auto: Option<(yam_referee::castle_siege::Policy, u64)>,
}

/// Plays a turn in game `id`. The opponent's open offers are declined by
/// playing on, as over a board.
pub fn play(desk: &Desk, id: &str, request: &MoveRequest) -> Result<Done, Error> {
    let mut game = my_game(desk, id)?;
    let me = desk.key();
    let gid = game_id_of(&game.replay)?;
    let chain = my_chain(desk, &gid)?;
    let signer = Signer {
        key: &desk.me.key,
        chain: chain.as_ref(),
    };
    let mut replay = game.replay.clone();
    let mut events = Vec::new();
    // Every offer that waits on the mover is declined, in the order the
    // game asks for the answers (`next_duty`); each answer ends one
    // offer, so this ends (a draw and a take-back offered together, or two take-backs,
    // were refused after the first decline: "it is not your move").
    loop {
        let answer = match next_duty(&replay) {
            Some(Duty::AnswerDraw(k)) if k == me => table::answer_draw(&mut replay, &signer, false),
            Some(Duty::AnswerTakeback(k)) if k == me => {
                table::answer_takeback(&mut replay, &signer, false)
            }
            _ => break,
        };
        events.push(answer.map_err(table_refusal)?);
    }
    if next_duty(&replay) != Some(Duty::Move(me)) {
        return Err(duty_refusal(desk, &game, "it is not your move"));
    }
    let intent = match request.auto {
        Some((policy, seed)) => {
            let seat = replay
                .seat_of(&me)
                .ok_or_else(|| Error::invalid("refused: you have no seat"))?;
            match autoplay::choose(&replay, seat, policy, seed)
                .map_err(|e| Error::invalid(format!("refused: {e}")))?
            {
                // A face-down setup Yam places for a player is drawn from
                // the operating system's randomness, as its salt is: drawn
                // from `--seed` and the count of the record's events, both
                // the opponent's to know, it was the opponent's to compute
                // the moment it was sealed (CS-07;
                // `directory::a_setup_sealed_by_auto_cannot_be_computed_by_the_opponent`).
                Intent::Seal(_) => Intent::Seal(secret_placement(
                    yam_referee::castle_siege::game_replay::side_of(seat),
                )?),
                other => other,
            }
        }
        None => written_intent(&replay, &request.moves)?,
    };
    let news;
    match intent {
        Intent::Orders(moves) => match table::prepare(&replay, &moves, &signer) {
            Ok(Prepared::Plain(moves)) => {
                events.push(
                    table::play_with(&mut replay, &moves, Vec::new(), &signer)
                        .map_err(table_refusal)?,
                );
                news = format!("{} plays {}.", desk.config.identity.name, moves.join(" "));
            }
            Ok(Prepared::Roll(orders)) => {
                if request.dry_run {
                    return Ok(Done {
                        lines: vec![
                            format!("legal so far: the turn needs dice; declared orders: {}", orders.join(" ")),
                            "dry run: the request is not signed, so no value is drawn; nothing written, nothing sent".into(),
                        ],
                    });
                }
                events.push(
                    table::request_roll(&mut replay, &orders, &signer, "")
                        .map_err(table_refusal)?,
                );
                news = format!(
                    "{} declares {} and asks for the dice (roll request).",
                    desk.config.identity.name,
                    if orders.is_empty() {
                        "no orders".to_owned()
                    } else {
                        orders.join(" ")
                    }
                );
            }
            Err(e) => return Err(table_refusal(e)),
        },
        Intent::Seal(written) => {
            events.push(seal_setup(
                &mut replay,
                &desk.secrets,
                &desk.me,
                &signer,
                &written,
                request.dry_run,
            )?);
            news = format!(
                "{} seals a setup; it stays secret until both are sealed.",
                desk.config.identity.name
            );
        }
        Intent::Reveal(written) => {
            events.push(reveal_setup(
                &mut replay,
                &desk.secrets,
                &desk.me,
                &signer,
                written,
            )?);
            news = format!("{} reveals the sealed setup.", desk.config.identity.name);
        }
    }
    if request.offer_draw {
        events.push(table::offer_draw(&mut replay, &signer).map_err(table_refusal)?);
    }
    let news = if request.offer_draw {
        format!("{news} And offers a draw.")
    } else {
        news
    };
    // The player's own words travel with the move, in the record and in
    // the mail's text.
    let news = match request.comment.as_deref().filter(|c| !c.trim().is_empty()) {
        Some(comment) => format!(
            "{news}\n{}: \u{201c}{}\u{201d}",
            desk.config.identity.name,
            comment.trim()
        ),
        None => news,
    };
    commit(
        desk,
        &mut game,
        &events,
        request.comment.as_deref(),
        news,
        request.dry_run,
    )
}

/// The one-event actions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Act {
    /// Resign.
    Resign,
    /// Offer a draw.
    OfferDraw,
    /// Accept or decline the open draw offer.
    AnswerDraw(bool),
    /// Offer to take back my last move.
    OfferTakeback,
    /// Accept or decline the open take-back offer.
    AnswerTakeback(bool),
    /// Claim a forfeit: the opponent has been silent too long.
    ClaimForfeit,
}

/// Does `act` in game `id`.
pub fn act(desk: &Desk, id: &str, act: Act) -> Result<Done, Error> {
    let mut game = my_game(desk, id)?;
    let me = desk.key();
    let gid = game_id_of(&game.replay)?;
    let chain = my_chain(desk, &gid)?;
    let signer = Signer {
        key: &desk.me.key,
        chain: chain.as_ref(),
    };
    let duty = next_duty(&game.replay);
    let mine = duty.as_ref().is_some_and(|d| d.who() == me);
    let name = desk.config.identity.name.clone();
    let mut replay = game.replay.clone();
    // One writer at a time: an offer is made on one's own move, and an
    // answer only to an offer that waits for it, so two mails never cross
    // with events on the same parent.
    let required = match act {
        Act::OfferDraw => Some((Duty::Move(me), "offer a draw on your own move")),
        Act::OfferTakeback => Some((Duty::Move(me), "offer a take-back on your own move")),
        Act::AnswerDraw(_) => Some((Duty::AnswerDraw(me), "no draw offer waits for your answer")),
        Act::AnswerTakeback(_) => Some((
            Duty::AnswerTakeback(me),
            "no take-back offer waits for your answer",
        )),
        Act::Resign | Act::ClaimForfeit => None,
    };
    if let Some((needed, why)) = required
        && duty.as_ref() != Some(&needed)
    {
        return Err(duty_refusal(desk, &game, why));
    }
    let verb = |yes: bool| if yes { "accepts" } else { "declines" };
    let (event, news) = match act {
        Act::Resign => {
            if duty.is_none() {
                return Err(Error::invalid("refused: the game is over"));
            }
            (
                table::resign(&mut replay, &signer).map_err(table_refusal)?,
                format!("{name} resigns."),
            )
        }
        Act::OfferDraw => (
            table::offer_draw(&mut replay, &signer).map_err(table_refusal)?,
            format!("{name} offers a draw."),
        ),
        Act::AnswerDraw(yes) => (
            table::answer_draw(&mut replay, &signer, yes).map_err(table_refusal)?,
            format!("{name} {} the draw.", verb(yes)),
        ),
        Act::OfferTakeback => {
            let back_to = replay
                .before_last_standing_move(&me)
                .ok_or_else(|| Error::invalid("refused: you have made no move to take back"))?;
            (
                table::offer_takeback(&mut replay, &signer, back_to).map_err(table_refusal)?,
                format!("{name} asks to take back their last move."),
            )
        }
        Act::AnswerTakeback(yes) => (
            table::answer_takeback(&mut replay, &signer, yes).map_err(table_refusal)?,
            format!("{name} {} the take-back.", verb(yes)),
        ),
        Act::ClaimForfeit => {
            let Some(duty) = duty else {
                return Err(Error::invalid("refused: the game is over"));
            };
            if mine {
                return Err(Error::invalid(
                    "refused: the game waits for you, not for your opponent",
                ));
            }
            // No claim lies before the opening is complete (the record
            // verifier refuses every event but an acceptance until then):
            // an unanswered challenge is taken back, not forfeited.
            if !replay.opening_complete() {
                return Err(Error::invalid(format!(
                    "refused: {} has not accepted the challenge, so there is no game to forfeit yet; `yam withdraw {id}` takes the challenge back",
                    desk.name_of(&duty.who())
                )));
            }
            refuse_while_unsent(&game, "a forfeit claim")?;
            let silent = now().saturating_sub(game.silent_since()) / 86_400;
            if silent < u64::from(game.meta.forfeit_days) {
                return Err(Error::invalid(format!(
                    "refused: {} has been silent {silent} day(s); a forfeit may be claimed after {} days",
                    desk.name_of(&duty.who()),
                    game.meta.forfeit_days
                )));
            }
            let reason = format!(
                "no answer in {silent} days (the agreed limit is {})",
                game.meta.forfeit_days
            );
            (
                table::claim_forfeit(&mut replay, &signer, duty.who(), &reason, None)
                    .map_err(table_refusal)?,
                format!(
                    "{name} claims a forfeit: {} has not answered in {silent} days. A director judges the claim (yam verify shows it).",
                    desk.name_of(&duty.who())
                ),
            )
        }
    };
    commit(desk, &mut game, &[event], None, news, false)
}

/// Refuses `what` (a forfeit claim, a reminder) while this desk's own last
/// step waits in its outbox: the opponent has not been sent the turn whose
/// silence would be counted (the silence starts when that mail goes out,
/// [`crate::commands::play::desk::Game::flush`]).
fn refuse_while_unsent(game: &Game, what: &str) -> Result<(), Error> {
    if game.meta.outbox.is_some() {
        return Err(Error::invalid(format!(
            "refused: your last mail of this game has not been sent, so your opponent does not have it yet; `yam send` sends it, and {what} counts their silence from then"
        )));
    }
    Ok(())
}

/// Sends a reminder to the opponent when the game waits for them.
pub fn remind(desk: &Desk, id: &str) -> Result<Done, Error> {
    let mut game = my_game(desk, id)?;
    let Some(duty) = next_duty(&game.replay) else {
        return Err(Error::invalid("refused: the game is over"));
    };
    if duty.who() == desk.key() {
        return Err(Error::invalid(
            "refused: the game waits for you, not for your opponent",
        ));
    }
    refuse_while_unsent(&game, "a reminder")?;
    let since = game.silent_since();
    let silent = now().saturating_sub(since) / 86_400;
    let after = desk.config.remind_after_days();
    if silent < u64::from(after) {
        return Err(Error::invalid(format!(
            "refused: the game has waited for {} for {silent} day(s); a reminder may be sent after {after} (from {}, UTC)",
            desk.name_of(&duty.who()),
            crate::game::header::first_whole_day_from(since + u64::from(after) * 86_400)
        )));
    }
    game.meta.reminders += 1;
    let news = format!(
        "Reminder {}: the game has waited for {} for {silent} day(s); a forfeit may be claimed after {} days of silence.",
        game.meta.reminders,
        desk.name_of(&duty.who()),
        game.meta.forfeit_days
    );
    game.save_meta()?;
    let number = game.meta.reminders;
    game.remind(desk, &news, number)?;
    Ok(Done { lines: vec![news] })
}

/// Sends every mail left in an outbox (a send that failed before).
/// Returns what was sent, and the failures.
pub fn send_waiting(desk: &Desk) -> (Vec<String>, Vec<Error>) {
    let (mut sent, mut failed) = (Vec::new(), Vec::new());
    // A game that cannot be read is said, never skipped: its mail may be
    // the one waiting, and "no mail is waiting" would tell the player her
    // move went when it never did.
    // The index of games with mail waiting; a store without one (of an
    // earlier build) has every game looked at once, and the index made.
    let (ids, indexed) = match desk.store.waiting() {
        Ok(Some(ids)) => (ids, true),
        Ok(None) => match desk.store.games() {
            Ok(ids) => (ids, false),
            Err(e) => {
                failed.push(Error::usage(e.to_string()));
                return (sent, failed);
            }
        },
        Err(e) => {
            failed.push(Error::usage(e.to_string()));
            return (sent, failed);
        }
    };
    let mut waiting = Vec::new();
    for id in ids {
        if indexed && !desk.store.holds(&id) {
            // A marker of a game since removed.
            let _ = crate::store::note_waiting(&desk.store.root().join("games").join(&id), false);
            continue;
        }
        match Stored::mail_waits(&desk.store, &id) {
            Ok(true) => waiting.push(id.clone()),
            Ok(false) => {
                if indexed {
                    // A marker a crash left: the mail went.
                    let _ = crate::store::note_waiting(
                        &desk.store.root().join("games").join(&id),
                        false,
                    );
                }
                continue;
            }
            Err(e) => {
                // Unreadable: kept in the index, said at every look.
                waiting.push(id.clone());
                failed.push(e);
                continue;
            }
        }
        let stored = match Stored::open(&desk.store, &id) {
            Ok(stored) => stored,
            Err(e) => {
                failed.push(e);
                continue;
            }
        };
        if !stored.has_waiting_mail() {
            continue;
        }
        let mut game = match stored.replay() {
            Ok(game) => game,
            Err(e) => {
                failed.push(Error::usage(format!(
                    "game {id}: a mail waits to be sent, but the game cannot be read: {e}"
                )));
                continue;
            }
        };
        match game.send_notice(desk) {
            Ok(true) => sent.push(format!("game {id}: the waiting notice is sent")),
            Ok(false) => {}
            Err(e) => failed.push(unsent(&game, &e)),
        }
        match game.flush(desk) {
            Ok(true) => sent.push(format!("game {id}: the waiting mail is sent")),
            Ok(false) => {}
            Err(e) => failed.push(unsent(&game, &e)),
        }
    }
    if !indexed && let Err(e) = desk.store.index_waiting(&waiting) {
        failed.push(Error::usage(e.to_string()));
    }
    (sent, failed)
}

/// Sends the game as it stands again (the same Message-ID as the turn
/// mail it repeats, so the opponent's client and Yam see a duplicate).
/// A mail still in the outbox is sent first, as it was.
pub fn resend(desk: &Desk, id: &str) -> Result<Done, Error> {
    let mut game = open_mail_game(desk, id)?;
    if let Some(closed) = game.meta.closed.clone() {
        if !closed.mine {
            return Err(Error::invalid(format!(
                "refused: game {id}: {} Nothing more is played.",
                closed.describe()
            )));
        }
        if let Some(c) = game.meta.closed.as_mut() {
            c.sent = false;
        }
        game.send_notice(desk).map_err(|e| unsent(&game, &e))?;
        return Ok(Done {
            lines: vec![format!("game {id}: the notice is sent again")],
        });
    }
    if game.flush(desk).map_err(|e| unsent(&game, &e))? {
        return Ok(Done {
            lines: vec![format!("game {id}: the waiting mail is sent")],
        });
    }
    let news = format!("(sent again) {}", super::body::whose_turn(&game, desk));
    resend_with(desk, &mut game, &news)?;
    Ok(Done { lines: vec![news] })
}

fn resend_with(desk: &Desk, game: &mut Game, news: &str) -> Result<(), Error> {
    game.mail(desk, news, Automatic::No)
}

/// Starts a stored game from a challenge just read (nothing is signed).
pub fn store_challenge(
    desk: &Desk,
    text: &[u8],
    replay: &SignedReplay,
    from: &Contact,
    referee: Option<String>,
) -> Result<String, Error> {
    let id = game_id_of(replay)?;
    // The players' names are fixed now, as the challenger's desk fixed
    // them: the challenger's card, and mine. (The challenge's own text is
    // kept as it came: chosen seats are named in it already.)
    let challenger = replay
        .challenge()
        .map(|c| c.challenger.key)
        .ok_or_else(|| Error::usage(format!("game {id}: the record has no challenge")))?;
    create_game(
        desk,
        id.as_str(),
        text,
        MailMeta {
            opponent: from.address.clone(),
            thread: Vec::new(),
            changed: now(),
            silence: Default::default(),
            stepped_from: None,
            forfeit_days: agreed_forfeit_days(text).unwrap_or(super::DEFAULT_FORFEIT_DAYS),
            reminders: 0,
            referee,
            outbox: None,
            closed: None,
            names: desk.names_of(&[challenger, desk.key()]),
            resignation_owed: None,
        },
    )?;
    Ok(id.as_str().to_owned())
}

/// A new game in the store: its first record, then its bookkeeping.
fn create_game(desk: &Desk, id: &str, text: &[u8], meta: MailMeta) -> Result<Game, Error> {
    // The bookkeeping is written under the lock the creation took: the game
    // was created and unlocked at once, then opened again to write it, and
    // a second `yam read` of the same challenge (a mail delivered twice, a
    // filter per copy) took the lock between, found a game with no
    // bookkeeping, read it as played with nobody and refused the challenge
    // (`a_challenge_delivered_twice_and_read_by_two_filters_at_once_is_not_refused`,
    // seen under load in CI).
    let locked = desk
        .store
        .create(id, text)
        .map_err(|e| Error::usage(e.to_string()))?;
    let stored = Stored {
        locked,
        text: text.to_vec(),
        meta,
        record: None,
    };
    stored.save_meta()?;
    stored.replay()
}
