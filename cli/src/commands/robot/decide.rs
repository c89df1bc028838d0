//! What the robot does with one mail: everything it decides, computed
//! against the store without changing it, as a [`Work`]: the files to
//! write and the mails to send. `journal` makes the work durable before
//! any of it happens, so a crash repeats none of it and loses none of it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use crate::game::silence::SilenceClock;
use serde::{Deserialize, Serialize};
use yam_notation::{GameKind, RawGrammar, Record, parse_record};
use yam_referee::fair_play::chain::HashChain;
use yam_referee::fair_play::encoding::Text;
use yam_referee::fair_play::game_id::GameId;
use yam_referee::fair_play::sign::PublicKey;
use yam_referee::fair_play::turn::{EventBody, Mode, SignedEvent};
use yam_referee::replay::{LoadedRuleset, RulesCatalog};
use yam_referee::signed::prefix::PrefixDigest;
use yam_referee::signed::replay::OfferKind;
use yam_referee::signed::table::{self, Opening, Seating, Signer, TableError};
use yam_referee::signed::tip::{After, Bounds, replay_continued};
use yam_referee::signed::verify::Known;
use yam_referee::signed::write::append_verified_in_place;
use yam_referee::signed::{
    Checkpoint, SharedBytes, SignedReplay, SignedText, Tip, replay_text_knowing,
};

use super::auth::{self, Player};
use super::command::{self, Command, Offer, Parsed};
use super::hygiene;
use super::roll;
use crate::game::checkpoint;
use crate::game::keys::chain_length;
use crate::game::record::read_signed_with_record;
use crate::game::rulesets::RecordRulesets;
use crate::game::secrets::{Identity, Secrets, random_32};
use crate::game::setup::secret_placement;
use crate::mail::extract::{Incoming, read_mail};
use crate::store::Store;

mod keybook;
mod normal_addresses;
mod witness;

/// The robot's settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// Days of silence after which the player to move is reminded.
    pub reminders: Vec<u32>,
    /// Days of silence after which the robot claims the game for the other
    /// side (a solo game: abandoned).
    pub forfeit: u32,
    /// The largest mail read, in bytes.
    pub max_mail: usize,
    /// The largest mail read of a game the robot witnesses, from one of
    /// its players (named so by its headers, read first): such a mail
    /// carries the game's whole record twice and grows with it.
    pub max_game_mail: usize,
    /// Unauthenticated mails read per sender per hour (authenticated
    /// mail is never counted).
    pub per_hour: u32,
    /// Unauthenticated mails read from everyone per hour.
    pub unauthenticated_per_hour: u32,
    /// Answers to unauthenticated mail (welcomes, refusals) per hour, to
    /// everyone; one a day to any one address.
    pub answers_per_hour: u32,
    /// Invitations one player may send a day (challenges naming an
    /// address).
    pub invitations_per_day: u32,
    /// Days a challenge waits for its `join` before it expires.
    pub invitation_days: u32,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            reminders: vec![14, 28, 35],
            forfeit: 40,
            max_mail: 1 << 20,
            max_game_mail: crate::mail::extract::MAX_MAIL,
            per_hour: 10,
            unauthenticated_per_hour: 200,
            answers_per_hour: 60,
            invitations_per_day: 5,
            invitation_days: 14,
        }
    }
}

/// Where a game stands for the robot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stage {
    /// Challenged, waiting for `join`.
    Pending,
    /// Being played.
    Active,
    /// Over.
    Over,
}

/// What the robot keeps beside a game's record (`games/ID/robot.yaml`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameMeta {
    /// The game id.
    pub id: String,
    /// The game's name (`Khan`).
    pub game: String,
    /// The ruleset's name.
    pub ruleset: String,
    /// Where it stands.
    pub stage: Stage,
    /// Who challenged.
    pub challenger: String,
    /// Who is invited (none: anyone may join).
    pub invited: Option<String>,
    /// Whether the challenger takes the second seat.
    pub challenger_second: bool,
    /// The players' addresses in seat order (once started).
    pub seats: Vec<String>,
    /// The Message-IDs of the robot's mails about the game, oldest first.
    pub thread: Vec<String>,
    /// When a player last acted (seconds since 1970).
    pub last_activity: u64,
    /// Reminders sent (days) for the silence counted from
    /// `reminders_since` ([`GameMeta::reminders_sent_now`]).
    pub reminders_sent: Vec<u32>,
    /// The silence `reminders_sent` are for (its start, as
    /// [`SilenceClock::silent_since`] counts it): a change that leaves the
    /// game waiting on the same silence keeps them, so a reminder is not
    /// sent twice for one silence (an offer and its answer that restart
    /// nothing did). Absent in games of an earlier build, whose list was
    /// emptied at every change and so was the current silence's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reminders_since: Option<u64>,
    /// A game between players with their own keys and chains, which the
    /// robot only witnesses: it holds no key of it and signs nothing.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub witness: bool,
    /// In a witnessed game, each party's key (hex) and the address whose
    /// mail first brought an event signed by it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bound: Vec<Binding>,
    /// When the challenge was made (seconds since 1970); absent in games
    /// of an earlier build, whose `last_activity` stands for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created: Option<u64>,
    /// Since when the move or the answer the game waits for is due
    /// (`move_due_since`, `answer_due_since`): offers and answers do not
    /// restart a move's silence ([`SilenceClock`]). Absent in games of an
    /// earlier build, where `last_activity` stands for them.
    #[serde(flatten)]
    pub silence: SilenceClock,
    /// In a witnessed game, a key found to have signed two different
    /// events at one place: the robot keeps the other history beside the
    /// game and reminds nobody of it (a director rules).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub equivocation: Option<Equivocation>,
    /// In a witnessed game, the key (hex) whose resignation crossed the
    /// other player's step in the mail and is void (`docs/fair-play.md`,
    /// 3.10): its next event must be that resignation signed again (a
    /// resignation is not taken back by crossing). Absent when none is
    /// owed, and in games of an earlier build.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resignation_owed: Option<String>,
}

/// Two different events signed by one key at one place of a witnessed game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Equivocation {
    /// The key that signed both (hex).
    pub key: String,
    /// The place: the position of the two events.
    pub event: u32,
    /// When the robot found it (seconds since 1970).
    pub since: u64,
}

impl GameMeta {
    /// Since when the party the game waits for has been silent.
    pub fn silent_since(&self) -> u64 {
        self.silence.silent_since(self.last_activity)
    }

    /// The reminders sent for the silence counted now.
    pub fn reminders_sent_now(&self) -> &[u32] {
        match self.reminders_since {
            Some(since) if since != self.silent_since() => &[],
            _ => &self.reminders_sent,
        }
    }

    /// Notes that the reminder of `day` was sent for the silence counted
    /// now.
    pub fn note_reminder(&mut self, day: u32) {
        let since = self.silent_since();
        if self.reminders_since.is_some_and(|kept| kept != since) {
            self.reminders_sent.clear();
        }
        self.reminders_since = Some(since);
        self.reminders_sent.push(day);
    }

    /// The game changed now by `events` into `after`: its clock steps, and
    /// the reminders sent stay with the silence they were sent for.
    pub fn changed_by(&mut self, events: &[SignedEvent], after: &SignedReplay, now: u64) {
        if self.reminders_since.is_none() {
            // A list of an earlier build is the current silence's.
            self.reminders_since = Some(self.silent_since());
        }
        // A clock set back (a machine booted without its time) never
        // dates a change before the one before: counted from a past the
        // game never had, a silence begun a minute ago would look months
        // old and the robot would claim a forfeit for it.
        let now = now.max(self.last_activity);
        self.silence.step(events, after, now, self.last_activity);
        self.last_activity = now;
    }
}

/// A party's key bound to the address that speaks for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Binding {
    /// The public key, hex.
    pub key: String,
    /// The address, lower case.
    pub address: String,
}

/// A mail to send, as the journal keeps it: composed again from this at
/// every attempt, with the same Message-ID.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutMail {
    /// Recipients.
    pub to: Vec<String>,
    /// Subject.
    pub subject: String,
    /// Text.
    pub body: String,
    /// Message-ID, without brackets.
    pub message_id: String,
    /// The mail it answers, if any.
    pub in_reply_to: Option<String>,
    /// The thread, oldest first.
    pub references: Vec<String>,
    /// `X-Yam-Game`, if about a game.
    pub game: Option<String>,
    /// A record attached: file name and text.
    pub attachment: Option<(String, String)>,
}

/// Everything decided for one mail: files (relative to the store's root)
/// and mails, plus log lines.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Work {
    /// Files to write, whole.
    pub writes: BTreeMap<String, String>,
    /// Mails to send.
    pub mails: Vec<OutMail>,
    /// What happened, for the log.
    pub log: Vec<String>,
    /// New players' tokens in the mails: the journal keeps them sealed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tokens: Vec<auth::Sealed>,
    /// Another key of the same mail, marked done with it: its Message-ID
    /// and sender alone, for a mail its sender's token authenticated. A
    /// copy of it whose text a gateway changed (a footer) is then the
    /// same mail, not decided again; a forger's copy of a Message-ID, which
    /// no token authenticates, marks nothing of the real mail's
    /// (docs/robot.md, "Crash safety").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub also_done: Option<String>,
    /// When it was decided (seconds since 1970), as the robot's clock
    /// read: the silences it started start then, and go on from when its
    /// mails went out should they go late (`Robot::mailed_late`). Absent
    /// in plans of an earlier build.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_at: Option<u64>,
}

/// The robot: its store, its keys, its address and the time.
#[derive(Debug)]
pub struct Robot {
    /// The store (games live in `games/`).
    pub store: Store,
    secrets: Secrets,
    /// Its address.
    pub address: String,
    /// Its settings.
    pub settings: Settings,
    /// The time, seconds since 1970.
    pub now: u64,
    tokens: auth::TokenKey,
    /// The store files read since [`Robot::touched`] was last called: what
    /// a decision depended on (`journal` holds back games with work not
    /// done).
    touched: std::cell::RefCell<std::collections::BTreeSet<String>>,
    /// What those files held (`None`: absent), so that a decision reads
    /// each once: the store changes only between decisions (the journal
    /// writes a group's files after they are decided), and
    /// [`Robot::touched`], called between any two, forgets them.
    read_now: std::cell::RefCell<BTreeMap<String, Option<String>>>,
    /// The games' and players' files read in this decision, parsed, each
    /// with the text it was parsed from (a decision asks for a game's
    /// bookkeeping several times: its member check, its load, its
    /// answer); forgotten with `read_now`.
    parsed_metas: std::cell::RefCell<BTreeMap<String, (String, GameMeta)>>,
    parsed_players: std::cell::RefCell<BTreeMap<String, (String, Player)>>,
    /// The files this decision found there but could not read or parse;
    /// taken by [`Robot::unreadable`].
    unreadable: std::cell::RefCell<Vec<Unreadable>>,
    /// Games read or written in this run, by id (see [`ReadGames`]).
    read_games: std::cell::RefCell<ReadGames>,
    /// The rate counts the decision under way made, to be taken back if it
    /// is thrown away ([`hygiene::Counted`]).
    pub counted: hygiene::Counted,
}

/// Games the robot read or wrote in this run, each with the exact text of
/// its record and the ruleset's hash it was read under, and what reading
/// it gave (the record as a [`RecordText`] and its verified replay): a
/// game met again with
/// the same text under the same ruleset is the same game, and is not read
/// and replayed again (a burst brings each game many mails in a row).
/// Bounded, least recently used first out, so that a robot that runs for
/// months keeps a few games, not all it ever saw.
#[derive(Debug, Default)]
struct ReadGames {
    games: Vec<ReadGame>,
    bytes: usize,
}

///
/// What reading gave is shared (`Rc`), not copied, with every command
/// that loads the game: a command only reading it (a `show`, a `list`)
/// copies nothing, and one that writes copies only what it changes
/// (`Rc::make_mut`), after the game is forgotten here ([`ReadGames::forget`])
/// so that nothing else holds it.
#[derive(Debug)]
struct ReadGame {
    id: String,
    ruleset: yam_referee::fair_play::hash::Hash32,
    text: RecordText,
    replay: Rc<SignedReplay>,
}

/// What reading a game gave, shared: its record's text and its replay.
type SharedReading = (RecordText, Rc<SignedReplay>);

/// A game's record as read (or as this run wrote it), for the next command
/// to continue without reading it whole again: new events are printed
/// after its verified part and only they are walked
/// ([`append_verified_in_place`], [`replay_continued`]), as the hot-seat
/// and the desk do (`crate::game::record::append_turn`).
#[derive(Debug, Clone)]
struct RecordText {
    text: Rc<String>,
    /// The record and its signed view, when the text was read whole; not
    /// when the replay came from the game's tip or the text was continued
    /// in place (a command that must print the record whole reads it
    /// then, [`RecordText::whole`]).
    whole: Option<(Rc<Record<String>>, Rc<SignedText>)>,
    /// Where new events go in `text`, if they can be appended there.
    bounds: Option<Bounds>,
    /// The digest of the text's first bytes that the last tip read or
    /// written was of (`Tip::write` spares hashing them again).
    digest: Option<PrefixDigest>,
}

impl RecordText {
    /// The record and its signed view, read from the text if they were not.
    fn whole(&mut self) -> Result<(Rc<Record<String>>, Rc<SignedText>), String> {
        if let Some(whole) = &self.whole {
            return Ok(whole.clone());
        }
        let mut games = read_signed_with_record(self.text.as_bytes()).map_err(|e| e.to_string())?;
        let (signed, record) = match games.as_mut_slice() {
            [Ok((one, record))] => (std::mem::take(one), record.take()),
            [Err(e)] => return Err(e.to_string()),
            _ => return Err("not one signed game".to_owned()),
        };
        let record = match record {
            Some(record) => record,
            None => parse_record::<RawGrammar>(&self.text).map_err(|e| e.to_string())?,
        };
        let whole = (Rc::new(record), Rc::new(signed));
        self.whole = Some(whole.clone());
        Ok(whole)
    }
}

impl ReadGames {
    /// At most this many games,
    const GAMES: usize = 64;
    /// and this many bytes of their records' text. What a game holds
    /// besides its text (its record, signed view and replay, each about
    /// the text's size) grows with it: the memory kept is a small multiple
    /// of this, bounded all the same.
    const BYTES: usize = 16 << 20;

    /// The game `id` as read from exactly `text` under `ruleset`, if kept;
    /// it becomes the most recently used.
    fn get(
        &mut self,
        id: &str,
        text: &str,
        ruleset: &yam_referee::fair_play::hash::Hash32,
    ) -> Option<SharedReading> {
        let at = self
            .games
            .iter()
            .position(|g| g.id == id && g.ruleset == *ruleset && *g.text.text == text)?;
        let game = self.games.remove(at);
        let found = (game.text.clone(), Rc::clone(&game.replay));
        self.games.push(game);
        Some(found)
    }

    /// Forgets the game `id`: a command about to change what it loaded
    /// then holds it alone, and changes it without copying it.
    fn forget(&mut self, id: &str) {
        if let Some(at) = self.games.iter().position(|g| g.id == id) {
            let old = self.games.remove(at);
            self.bytes -= old.text.text.len();
        }
    }

    /// Keeps `game` (replacing what was kept of its id), forgetting the
    /// least recently used beyond the bounds.
    fn keep(&mut self, game: ReadGame) {
        self.forget(&game.id);
        self.bytes += game.text.text.len();
        self.games.push(game);
        while self.games.len() > Self::GAMES || (self.bytes > Self::BYTES && self.games.len() > 1) {
            let old = self.games.remove(0);
            self.bytes -= old.text.text.len();
        }
    }
}

/// Whether `address` is one the robot can mail and keeps as it is: a
/// mailbox address (lettre's), at most 254 bytes, that trimming leaves as
/// it is (player files are named by the trimmed address).
fn mailable(address: &str) -> bool {
    address.len() <= 254 && address.trim() == address && address.parse::<lettre::Address>().is_ok()
}

/// A file of the store that is there but cannot be read or parsed (a
/// disk error, a hand edit gone wrong, a file of another build): the
/// operator's to mend. A decision that met one is not carried out and its
/// mail waits unread: taken for absent, a player's damaged file made her
/// a newcomer (welcomed again, her file written over with a new token),
/// and a game's made it "no game" (its moves refused, its deadlines
/// skipped without a word).
#[derive(Debug, Clone, PartialEq, Eq, Hash, thiserror::Error)]
#[error(
    "{file} cannot be read: {why}; mend or restore it, and the mails that need it are read again"
)]
pub struct Unreadable {
    /// The file, relative to the data directory.
    pub file: String,
    /// What went wrong: the system's error, or the parser's with its line
    /// and column.
    pub why: String,
}

/// The robot's own identity in its secrets directory.
pub const ROBOT_IDENTITY: &str = "robot";

/// Legal moves shown in an answer, at most.
const HINTS: usize = 40;

/// The day (`YYYYMMDD`) a game id the robot made names (`KIND-YYYYMMDD-`
/// and eight hex digits); `None` for an id of another form (a witnessed
/// game's, which its desks named).
fn made_on(id: &str) -> Option<&str> {
    let mut parts = id.rsplitn(3, '-');
    let (random, day) = (parts.next()?, parts.next()?);
    parts.next()?;
    (random.len() == 8
        && random.bytes().all(|b| b.is_ascii_hexdigit())
        && day.len() == 8
        && day.bytes().all(|b| b.is_ascii_digit()))
    .then_some(day)
}

fn meta_path(id: &str) -> String {
    format!("games/{id}/robot.yaml")
}

/// Makes the index of live games of a store of an earlier build: a marker
/// for each of `ids`, made durable, then the index said complete.
fn make_live_index(live: &Path, ids: &[String]) -> std::io::Result<()> {
    std::fs::create_dir_all(live)?;
    for id in ids {
        std::fs::File::create(live.join(id))?;
    }
    // The markers durable before the index says it is complete.
    #[cfg(unix)]
    std::fs::File::open(live)?.sync_all()?;
    crate::store::atomic::write(&live.join(LIVE_INDEXED), b"", true)
}

/// The index of games that may still owe something (a reminder, a
/// forfeit, an expiry): a marker a game, beside the games. Games over are
/// never read by the deadlines again: a robot of years kept thousands,
/// each read and parsed at every look.
const LIVE: &str = "live";

/// In [`LIVE`]: the clock settings the markers' hints (`ID@NEXT`) were
/// worked out with.
const LIVE_SETTINGS: &str = ".settings";

/// In [`LIVE`]: the index is complete (a store of an earlier build has
/// none, and its games are looked at once to make it).
const LIVE_INDEXED: &str = ".indexed";

/// A game in the index of live games ([`Robot::live_index`]).
#[derive(Debug, Default)]
struct LiveEntry {
    /// Its marker is there: look at it.
    marked: bool,
    /// The hints looks left, each its file's name and the time before
    /// which nothing is due.
    hints: Vec<(String, u64)>,
}

fn live_path(id: &str) -> String {
    format!("{LIVE}/{id}")
}

fn record_path(id: &str) -> String {
    format!("games/{id}/record.yam")
}

/// The verified checkpoint kept beside a game's record
/// ([`crate::game::checkpoint`]): written with the record, in the same
/// journaled group, so a command verifies only the events that are new.
fn checkpoint_path(id: &str) -> String {
    format!("games/{id}/checkpoint")
}

/// The game's tip (`docs/fair-play.md`, 9.11): its verified replay kept
/// beside the record, so that the first command of a game in a run
/// restores it rather than replaying the record. A cache, not the store:
/// written as it is made, outside the journal, since it is of exactly one
/// text (its length and BLAKE3 hash, sealed) and any other text, a tip
/// half written or none reads the record whole (`docs/robot.md`, "The
/// game's tip").
fn tip_path(id: &str) -> String {
    format!("games/{id}/tip")
}

pub(super) fn player_path(address: &str) -> String {
    format!("robot/players/{}.yaml", auth::address_key(address))
}

/// A game as read for a command.
/// Its record, signed view and replay are shared with [`ReadGames`].
struct Loaded {
    meta: GameMeta,
    /// The record's text, that `replay` is of: a record written after it
    /// continues it.
    text: RecordText,
    replay: Rc<SignedReplay>,
    ruleset: LoadedRuleset,
}

/// The parties' keys and chains, owned.
struct Keys {
    parties: Vec<(Identity, Option<HashChain>)>,
}

impl Keys {
    fn signer(&self, key: &PublicKey) -> Option<Signer<'_>> {
        self.parties
            .iter()
            .find(|(i, _)| i.key.public_key() == *key)
            .map(|(i, c)| Signer {
                key: &i.key,
                chain: c.as_ref(),
            })
    }
    fn others(&self, me: &PublicKey) -> Vec<Signer<'_>> {
        self.parties
            .iter()
            .filter(|(i, _)| i.key.public_key() != *me)
            .map(|(i, c)| Signer {
                key: &i.key,
                chain: c.as_ref(),
            })
            .collect()
    }
}

impl Keys {
    fn identity(&self, key: &PublicKey) -> Option<&Identity> {
        self.parties
            .iter()
            .map(|(i, _)| i)
            .find(|i| i.key.public_key() == *key)
    }
}

/// Castle Siege before the first round: the player's setup, sealed for
/// them (CS-07: the record shows only the sealed marker and the
/// commitment; the placement waits in the robot's secrets), and once both
/// are sealed, both revealed at once: no choice is left to anyone, so no
/// mail need wait for it. The robot holds both players' setups until then,
/// as it holds their keys: players who want to keep a setup even from the
/// referee play by mail with their own Yam (`docs/mail.md`).
fn siege_setup(
    replay: &mut SignedReplay,
    keys: &Keys,
    me: &PublicKey,
    moves: &[String],
    secrets: &Secrets,
) -> Result<Vec<SignedEvent>, String> {
    use yam_referee::castle_siege::game_replay::SetupStage;
    let stage =
        |replay: &SignedReplay| crate::game::autoplay::siege(replay).and_then(|s| s.setup_stage());
    let mut events = Vec::new();
    if stage(replay) == Some(SetupStage::Sealing) {
        let [written] = moves else {
            return Err("the setups are sealed first (CS-07): send your placement as one token, such as `move Defender:CKAO/OACK/KCOA/AOKC` or `move Attacker:KKRTTRKK/AA/SS/CC/CC/SS/AA/KKRTTRKK`; it stays secret until both are sealed".into());
        };
        let identity = keys.identity(me).ok_or("no key for you in this game")?;
        let signer = keys.signer(me).ok_or("no key for you in this game")?;
        events.push(
            crate::game::setup::seal_setup(replay, secrets, identity, &signer, written, false)
                .map_err(|e| match e {
                    crate::error::Error::Setup(refusal) => refusal.to_player(),
                    e => e.to_string(),
                })?,
        );
    }
    // At most two reveals; the bound only keeps a defect from looping.
    for _ in 0..2 {
        if stage(replay) != Some(SetupStage::Revealing) {
            break;
        }
        let to_move = replay.to_move_key().ok_or("nobody is to reveal")?;
        let identity = keys
            .identity(&to_move)
            .ok_or("a setup's owner has no key here")?;
        let signer = keys
            .signer(&to_move)
            .ok_or("a setup's owner has no key here")?;
        events.push(
            crate::game::setup::reveal_setup(replay, secrets, identity, &signer, None)
                .map_err(|e| e.to_string())?,
        );
    }
    Ok(events)
}

/// One command's answer: text, and the game it concerns.
struct Answer {
    text: String,
    game: Option<String>,
}

impl Robot {
    /// A robot on `store`, with its secrets in the store's secrets
    /// directory.
    pub fn new(store: Store, address: &str, settings: Settings, now: u64) -> Result<Robot, String> {
        let secrets = Secrets::open(&store.secrets_dir()).map_err(|e| e.to_string())?;
        secrets
            .identity(ROBOT_IDENTITY)
            .map_err(|e| e.to_string())?;
        let tokens = auth::TokenKey::open(&secrets).map_err(|e| e.to_string())?;
        Ok(Robot {
            store,
            secrets,
            address: crate::mail::address::normal(address),
            settings,
            now,
            tokens,
            touched: Default::default(),
            read_now: Default::default(),
            parsed_metas: Default::default(),
            parsed_players: Default::default(),
            unreadable: Default::default(),
            read_games: Default::default(),
            counted: Default::default(),
        })
    }

    /// The key that players' tokens are derived with.
    pub fn token_key(&self) -> auth::TokenKey {
        self.tokens.clone()
    }

    /// The store files read since the last call (relative to the root).
    /// It is also where one decision ends and the next begins: what was
    /// read is forgotten, and read again from the store.
    pub fn touched(&self) -> std::collections::BTreeSet<String> {
        self.unreadable.take();
        self.read_now.take();
        self.parsed_metas.take();
        self.parsed_players.take();
        self.touched.take()
    }

    /// Forgets what was read of game `id`'s files (not that they were
    /// read: [`Robot::touched`] still says so): the deadlines look at one
    /// game after another and need none of them again.
    fn forget_meta(&self, id: &str) {
        let prefix = format!("games/{id}/");
        self.read_now
            .borrow_mut()
            .retain(|rel, _| !rel.starts_with(&prefix));
        self.parsed_metas
            .borrow_mut()
            .retain(|rel, _| !rel.starts_with(&prefix));
    }

    /// A new token for `address`, noted in `work` so that its plan keeps
    /// it sealed.
    pub(super) fn new_token(
        &self,
        work: &mut Work,
        address: &str,
    ) -> Result<String, crate::game::secrets::SecretError> {
        let sealed = auth::Sealed::draw(&self.tokens, address).map_err(|e| self.secret_fault(e))?;
        let token = sealed.token().to_owned();
        work.tokens.push(sealed);
        Ok(token)
    }

    fn root(&self) -> &Path {
        self.store.root()
    }

    /// The robot's own directory (journal, players, counts).
    pub fn dir(&self) -> PathBuf {
        self.root().join("robot")
    }

    /// The store file `rel` as this decision sees it: its own write, else
    /// the file; `None` when absent, and when there but unreadable, which
    /// is noted ([`Unreadable`]) so the decision is not carried out.
    fn read(&self, work: &Work, rel: &str) -> Option<String> {
        self.touched.borrow_mut().insert(rel.to_owned());
        if let Some(text) = work.writes.get(rel) {
            return Some(text.clone());
        }
        self.read_now
            .borrow_mut()
            .entry(rel.to_owned())
            .or_insert_with(|| match std::fs::read_to_string(self.root().join(rel)) {
                Ok(text) => Some(text),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                Err(e) => {
                    self.note_unreadable(rel, e.to_string());
                    None
                }
            })
            .clone()
    }

    /// The robot's secrets failed it (a key or chain that cannot be read
    /// or written, no randomness): noted like a damaged store file, so the
    /// mail that needed them waits for the operator instead of being
    /// answered with the failure (which would name the robot's paths to
    /// the sender) or dropped.
    fn secret_fault<E: std::fmt::Display>(&self, e: E) -> E {
        self.note_unreadable("secrets", e.to_string());
        e
    }

    fn note_unreadable(&self, rel: &str, why: String) {
        self.unreadable.borrow_mut().push(Unreadable {
            file: rel.to_owned(),
            why,
        });
    }

    /// The files the decisions since the last call found unreadable, each
    /// once (and forgets them): a decision that met any is not to be
    /// carried out.
    pub fn unreadable(&self) -> Vec<Unreadable> {
        let mut unreadable = self.unreadable.take();
        unreadable.sort_by(|a, b| a.file.cmp(&b.file));
        unreadable.dedup();
        unreadable
    }

    /// The YAML file `rel` parsed from `text`: from `memo` when it was
    /// parsed from exactly this text before (a decision's own write, read
    /// back, is another text, and parsed anew); `None`, noted as
    /// [`Unreadable`], when it does not parse.
    fn parsed<T: Clone + serde::de::DeserializeOwned>(
        &self,
        memo: &std::cell::RefCell<BTreeMap<String, (String, T)>>,
        rel: &str,
        text: String,
    ) -> Option<T> {
        if let Some((from, value)) = memo.borrow().get(rel)
            && *from == text
        {
            return Some(value.clone());
        }
        let value: T = self.yaml(rel, &text)?;
        memo.borrow_mut()
            .insert(rel.to_owned(), (text, value.clone()));
        Some(value)
    }

    /// The YAML file `rel`, whose text is `text`, parsed; `None`, noted
    /// as [`Unreadable`], when it does not parse.
    pub(super) fn yaml<T: serde::de::DeserializeOwned>(&self, rel: &str, text: &str) -> Option<T> {
        serde_yaml_ng::from_str(text)
            .map_err(|e| self.note_unreadable(rel, e.to_string()))
            .ok()
    }

    fn player(&self, work: &Work, address: &str) -> Option<Player> {
        let rel = player_path(address);
        if let Some(text) = self.read(work, &rel) {
            return self.parsed(&self.parsed_players, &rel, text);
        }
        // A player an earlier build filed under the form it knew (a
        // punycode domain, a local part in NFD, a final sigma) was moved
        // here once (`Robot::normalize_stored_addresses`).
        None
    }

    fn put_player(&self, work: &mut Work, player: &Player) {
        if let Ok(text) = serde_yaml_ng::to_string(player) {
            work.writes.insert(player_path(&player.address), text);
        }
    }

    fn meta(&self, work: &Work, id: &str) -> Option<GameMeta> {
        if !valid_id(id) {
            return None;
        }
        let rel = meta_path(id);
        self.parsed(&self.parsed_metas, &rel, self.read(work, &rel)?)
    }

    fn put_meta(&self, work: &mut Work, meta: &GameMeta) {
        if let Ok(text) = serde_yaml_ng::to_string(meta) {
            work.writes.insert(meta_path(&meta.id), text);
            // A game that may still owe something is in the index the
            // deadlines read, written in the same step as its bookkeeping
            // (a marker left on a game since over costs one look). A game
            // over gets one too: the next look then removes it with the
            // game's hints, one of which (`u64::MAX`: no clock ran on it)
            // would otherwise stay for ever.
            work.writes.insert(live_path(&meta.id), String::new());
        }
    }

    /// The record attached to a mail about game `id`: none for a witnessed
    /// game, whose players hold the record themselves (their Yam would
    /// refuse a record from an address not in the game).
    fn attachment(&self, work: &Work, id: &str) -> Option<(String, String)> {
        if self.meta(work, id).is_some_and(|m| m.witness) {
            return None;
        }
        self.read(work, &record_path(id))
            .map(|text| (format!("{id}.yam"), text))
    }

    fn domain(&self) -> &str {
        self.address.split('@').nth(1).unwrap_or("yam.invalid")
    }

    /// A Message-ID the robot will give the same mail every time: from the
    /// key of what caused it, its place, and the game.
    fn message_id(&self, key: &str, n: usize, game: Option<&str>) -> String {
        format!(
            "yam-robot.{key}.{n}.{}@{}",
            game.unwrap_or("x"),
            self.domain()
        )
    }

    /// Decides what to do with one raw mail. `key` names it in the journal
    /// and in the Message-IDs of the answers.
    pub fn handle(&self, key: &str, raw: &[u8]) -> Work {
        let mut work = Work::default();
        let too_large = |work: &mut Work, max: usize| {
            work.log.push(format!(
                "ignored {key}: {} bytes, more than the {max} read",
                raw.len()
            ));
        };
        if raw.len() > self.settings.max_mail.max(self.settings.max_game_mail) {
            too_large(&mut work, self.settings.max_mail);
            return work;
        }
        let incoming = match read_mail(raw) {
            Ok(i) => i,
            Err(e) => {
                work.log.push(format!("ignored {key}: {e}"));
                return work;
            }
        };
        // Every address the robot keeps is a sender's: one it could not
        // mail is no sender. A From with a Unicode space after the address
        // (NO-BREAK SPACE, LINE SEPARATOR) was kept as it was, but a
        // player's file is named by the address trimmed: a forger took a
        // newcomer's file with a token mailed nowhere, and she could never
        // register.
        if !incoming.from.as_deref().is_some_and(mailable) {
            work.log.push(format!(
                "ignored {key}: bad From address {:?}",
                incoming.from.as_deref().unwrap_or_default()
            ));
            return work;
        }
        // A signed record is judged by its signatures before any header:
        // a member's automatic step carries Auto-Submitted.
        if self.witness(&mut work, key, &incoming, raw) {
            return work;
        }
        // Larger than a command: only a witnessed game's record is read.
        if raw.len() > self.settings.max_mail {
            too_large(&mut work, self.settings.max_mail);
            return work;
        }
        if let Some(why) = hygiene::ignore_reason(&incoming, raw, &self.address) {
            work.log.push(format!(
                "ignored {key} from {}: {why}",
                incoming.from.as_deref().unwrap_or("?")
            ));
            return work;
        }
        let from = incoming.from.clone().unwrap_or_default();
        let body = body_text(raw);
        let parsed = command::parse(&incoming.subject, &body);
        // The token first: a player's own mail is never counted against
        // any limit, so a flood in her name cannot crowd it out.
        let authenticated = self
            .player(&work, &from)
            .is_some_and(|p| p.accepts(parsed.token.as_deref()));
        if !self.unreadable.borrow().is_empty() {
            // The sender's file is damaged: nothing is decided on it, not
            // even a count against the sender's limits (the runner keeps
            // the mail unread).
            return work;
        }
        if !authenticated {
            let limits = hygiene::Limits::new(&self.dir(), &self.settings, &self.counted);
            if let Err(why) = limits.read_unauthenticated(&from, self.now) {
                work.log.push(format!(
                    "ignored {key} from {from}: no valid token, and {why}"
                ));
                return work;
            }
        }
        self.obey(&mut work, key, &incoming, &from, &parsed);
        if authenticated {
            work.also_done = super::earlier_key(raw).filter(|k| k != key);
        }
        work
    }

    /// Whether a mail is authenticated: a registered player's with her
    /// token, or a signed record (judged by its signatures later). Read
    /// only; the loop reads authenticated mail first.
    pub fn authenticated(&self, raw: &[u8]) -> bool {
        if raw.len() > self.settings.max_mail.max(self.settings.max_game_mail) {
            return false;
        }
        let Ok(incoming) = read_mail(raw) else {
            return false;
        };
        if !incoming.turns.is_empty() {
            return true;
        }
        if raw.len() > self.settings.max_mail {
            return false;
        }
        let Some(from) = incoming.from.as_deref() else {
            return false;
        };
        let body = body_text(raw);
        let parsed = command::parse(&incoming.subject, &body);
        self.player(&Work::default(), from)
            .is_some_and(|p| p.accepts(parsed.token.as_deref()))
    }

    /// Whether a mail larger than `max_mail` is to be read, by its first
    /// bytes `head` (its header): a mail Yam wrote (`X-Yam-Game`) about a
    /// game the robot witnesses, from an address bound to one of its keys.
    /// A witnessed game's mails carry its record twice and grow with it:
    /// a record past some 450 kB made every later mail of the game larger
    /// than a command may be, dropped unread, and the witness stopped for
    /// good without a word. Anyone else's large mail is never downloaded.
    pub fn reads_large(&self, head: &[u8]) -> bool {
        let Some(message) = mail_parser::MessageParser::default().parse_headers(head) else {
            return false;
        };
        let Some(game) = message
            .header_raw("X-Yam-Game")
            .and_then(|value| value.split_whitespace().next())
            .filter(|g| valid_id(g))
        else {
            return false;
        };
        let Some(from) = message
            .from()
            .and_then(|f| f.first())
            .and_then(|a| a.address())
            .map(crate::mail::extract::sender_address)
        else {
            return false;
        };
        self.meta(&Work::default(), game)
            .is_some_and(|m| m.witness && m.bound.iter().any(|b| b.address == from))
    }

    /// Whether an answer to unauthenticated mail may go to `to` now (one
    /// a day an address, and the hour's total); counted when it may.
    fn may_answer_unauthenticated(
        &self,
        work: &mut Work,
        key: &str,
        kind: hygiene::Answer,
        to: &str,
    ) -> bool {
        let limits = hygiene::Limits::new(&self.dir(), &self.settings, &self.counted);
        if limits.answer_unauthenticated(kind, to, self.now) {
            return true;
        }
        work.log.push(format!(
            "{key}: no answer to {to}: {} a day to an address that has not authenticated, and at most {} such answers an hour",
            match kind {
                hygiene::Answer::Welcome => "one welcome",
                hygiene::Answer::Refusal => "one refusal",
                hygiene::Answer::Confirmation => "a few confirmations",
            },
            self.settings.answers_per_hour
        ));
        false
    }

    fn reply(
        &self,
        work: &mut Work,
        key: &str,
        incoming: &Incoming,
        to: &str,
        body: String,
        game: Option<&str>,
    ) {
        let mut references = incoming.replies_to.clone();
        references.reverse();
        if let Some(id) = &incoming.message_id {
            references.push(id.clone());
        }
        // The subject is the sender's text: a long one is quoted in part.
        let theirs = command::quote_part(&incoming.subject, 200);
        let subject = if theirs.trim().is_empty() {
            "Yam robot".to_owned()
        } else if theirs.to_ascii_lowercase().starts_with("re:") {
            theirs
        } else {
            format!("Re: {theirs}")
        };
        let n = work.mails.len();
        let attachment = game.and_then(|g| self.attachment(work, g));
        let game_header = game.map(|g| g.to_owned());
        work.mails.push(OutMail {
            to: vec![to.to_owned()],
            subject,
            body,
            message_id: self.message_id(key, n, game),
            in_reply_to: incoming.message_id.clone(),
            references,
            game: game_header,
            attachment,
        });
    }

    fn obey(&self, work: &mut Work, key: &str, incoming: &Incoming, from: &str, parsed: &Parsed) {
        let Some(mut player) = self.player(work, from) else {
            // A new address: a token for it, mailed to it alone. Nothing
            // else is done, since anyone can write any From address. The
            // welcome is backscatter when the From was forged: one a day
            // an address, and the hour's total; an address not answered
            // is not registered, so its owner may write again later.
            if !self.may_answer_unauthenticated(work, key, hygiene::Answer::Welcome, from) {
                return;
            }
            let token = match self.new_token(work, from) {
                Ok(t) => t,
                Err(e) => {
                    work.log.push(format!("error {key}: {e}"));
                    return;
                }
            };
            let mut player = Player::new(from, &token, self.now);
            // Games witnessed before the address registered are its games
            // too: `list` and the default game know them.
            player.games = self.registered_games(work, from);
            self.put_player(work, &player);
            work.log.push(format!("registered {from}"));
            let body = format!(
                "Welcome to the Yam robot.\n\nYour token is:  {token}\n\nPut the line\n\n  token: {token}\n\n\
                 in every mail you send the robot; mails without it are refused. Keep it to yourself:\n\
                 anyone with it can play your games. This first mail only registers you: its commands\n\
                 were not carried out; send them again with your token.\n\n{}",
                command::HELP
            );
            self.reply(work, key, incoming, from, body, None);
            return;
        };
        if !player.accepts(parsed.token.as_deref()) {
            let why = if parsed.token.is_some() {
                "the token is wrong"
            } else {
                "the mail carries no `token: XXXX` line"
            };
            work.log
                .push(format!("refused {key} from {from}: {why}; nothing done"));
            // Told once a day at most: a flood in her name must not become
            // a flood to her.
            if !self.may_answer_unauthenticated(work, key, hygiene::Answer::Refusal, from) {
                return;
            }
            let body = format!(
                "Refused: {why}. Nothing was done.\n\nExpected: a line `token: XXXX` with the token the robot \
                 mailed you when you first wrote. If you did not send the mail this answers, someone \
                 wrote in your name; without your token they can do nothing.\n"
            );
            self.reply(work, key, incoming, from, body, None);
            return;
        }
        // Heard from: invitations to her are no longer mails to a stranger.
        if player.unheard {
            player.unheard = false;
            self.put_player(work, &player);
        }
        let mut sections = Vec::new();
        let mut last_game = None;
        for bad in &parsed.errors {
            sections.push(format!(
                "> {}\nNot understood. Expected: {}\n",
                bad.line, bad.expected
            ));
        }
        if parsed.commands.is_empty() && parsed.errors.is_empty() {
            sections.push(format!("No command found.\n\n{}", command::HELP));
        }
        let context = thread_game(incoming);
        let seed = parsed
            .seed
            .clone()
            .or_else(|| {
                incoming.message_id.as_ref().map(|id| {
                    format!("mail {id}")
                        .chars()
                        .take(command::MAX_SEED)
                        .collect()
                })
            })
            .unwrap_or_default();
        for c in &parsed.commands {
            let answer = self.command(work, key, from, &mut player, c, context.as_deref(), &seed);
            let answer = match answer {
                Ok(a) => a,
                Err(e) => Answer {
                    text: format!("Refused: {e}\n"),
                    game: None,
                },
            };
            if answer.game.is_some() {
                last_game.clone_from(&answer.game);
            }
            // What the sender wrote comes back quoted in part when long, in
            // the echo of the command and in any error that names it.
            sections.push(format!(
                "> {}\n{}",
                command::quote_part(&describe(c), 200),
                command::shorten_words(&answer.text)
            ));
        }
        if parsed.truncated {
            sections.push(format!(
                "Only the first {} commands were read.\n",
                command::MAX_COMMANDS
            ));
        }
        work.log.push(format!(
            "answered {key} from {from}: {} command(s)",
            parsed.commands.len()
        ));
        self.reply(
            work,
            key,
            incoming,
            from,
            sections.join("\n"),
            last_game.as_deref(),
        );
        if let Some(g) = &last_game
            && let Some(mut meta) = self.meta(work, g)
            && let Some(id) = work.mails.last().map(|m| m.message_id.clone())
        {
            crate::mail::thread::add(&mut meta.thread, &id);
            self.put_meta(work, &meta);
        }
    }

    /// The game a command means: named, else the thread's, else the
    /// sender's only active game.
    fn which_game(
        &self,
        work: &Work,
        player: &Player,
        named: Option<&str>,
        context: Option<&str>,
    ) -> Result<String, String> {
        if let Some(id) = named {
            return Ok(id.to_owned());
        }
        if let Some(id) = context
            && player.games.iter().any(|g| g == id)
        {
            return Ok(id.to_owned());
        }
        // Only the games the index of live games holds (or this decision
        // made live) are read: a player's register keeps every game she
        // ever had, and a move that named none read them all
        // (`a_move_that_names_no_game_reads_no_game_of_its_player_that_is_over`).
        let live = self.live_ids();
        let active: Vec<&String> = player
            .games
            .iter()
            .filter(|g| {
                live.as_ref().is_none_or(|live| live.contains(g.as_str()))
                    || work.writes.contains_key(&live_path(g))
            })
            .filter(|g| self.meta(work, g).is_some_and(|m| m.stage == Stage::Active))
            .collect();
        match active.as_slice() {
            [one] => Ok((*one).clone()),
            [] => Err(
                "you have no game in play; expected `challenge GAME ...` or `join GAME-ID`".into(),
            ),
            many => Err(format!(
                "which game? Expected a game id after the command; yours are {}",
                many.iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn command(
        &self,
        work: &mut Work,
        key: &str,
        from: &str,
        player: &mut Player,
        c: &Command,
        context: Option<&str>,
        seed: &str,
    ) -> Result<Answer, String> {
        match c {
            Command::Help => Ok(Answer {
                text: command::HELP.to_owned(),
                game: None,
            }),
            Command::List => Ok(Answer {
                text: self.list(work, player),
                game: None,
            }),
            Command::Challenge {
                game,
                ruleset,
                invited,
                second,
            } => self.challenge(
                work,
                key,
                from,
                player,
                game,
                ruleset.as_deref(),
                invited.as_deref(),
                *second,
            ),
            Command::Join(id) => self.join(work, key, from, player, id),
            Command::Show(id) => {
                let id = self.which_game(work, player, id.as_deref(), context)?;
                let meta = self.member(work, from, &id)?;
                if meta.stage == Stage::Pending {
                    return Ok(Answer {
                        text: format!("{id}: waiting for a player to join (`join {id}`).\n"),
                        game: None,
                    });
                }
                let loaded = self.load(work, &id)?;
                Ok(Answer {
                    text: self.status(&loaded, Some(from)),
                    game: Some(id),
                })
            }
            Command::Move { game, moves, ply } => {
                // `move ID MOVE...`: a first word naming one of the
                // sender's games is the game.
                let (named, moves) = match (game, moves.split_first()) {
                    (Some(g), _) => (Some(g.clone()), moves.clone()),
                    (None, Some((first, rest)))
                        if !rest.is_empty() && player.games.iter().any(|g| g == first) =>
                    {
                        (Some(first.clone()), rest.to_vec())
                    }
                    _ => (None, moves.clone()),
                };
                let id = self.which_game(work, player, named.as_deref(), context)?;
                // Opened by this very mail: its chains were drawn after its
                // seed was read, so that seed must not lay out the game.
                let opened_now = work.writes.contains_key(&record_path(&id))
                    && !self.root().join(record_path(&id)).exists();
                let secrets = &self.secrets;
                self.act(work, key, from, &id, |replay, keys, me| {
                    if let Some(ply) = ply
                        && *ply != replay.plies()
                    {
                        return Err(format!(
                            "your mail was written at ply {ply}, but the game is at ply {}: look at the board below and send your move again",
                            replay.plies()
                        ));
                    }
                    // One writer at a time, as the desks have it: while
                    // the mover's own offer waits, a move would withdraw
                    // it while the answer may be on its way, and that
                    // answer, which names no offer, would be read as one
                    // to a later offer its author never saw.
                    if let Some(kind) = replay.open_offer_of(me) {
                        return Err(format!(
                            "your {} offer waits for the other side's answer; move when it comes (a move now would withdraw the offer while an answer to it may be on its way)",
                            match kind {
                                OfferKind::Draw => "draw",
                                OfferKind::Takeback => "take-back",
                            }
                        ));
                    }
                    let mover = keys.signer(me).ok_or("no key for you in this game")?;
                    if roll::layout_pending(replay) {
                        // The rules' own draw first (the Foe layout), with
                        // this mail's seed: `move start`.
                        if opened_now {
                            return Err("the Foe rows are laid out by a mail after the one that opened the game, so that the robot's chains are committed before it reads your seed; send `move start` again".into());
                        }
                        if !moves.iter().all(|m| m.eq_ignore_ascii_case("start")) {
                            return Err("the Foe rows are not laid out yet; expected `move start` (with a `seed:` line)".into());
                        }
                        return table::play_seeded(replay, &[], &mover, &keys.others(me), seed)
                            .map_err(refusal);
                    }
                    if crate::game::autoplay::siege(replay).and_then(|s| s.setup_stage()).is_some() {
                        return siege_setup(replay, keys, me, &moves, secrets);
                    }
                    let moves = crate::game::input::canonical_moves(replay, &moves)
                        .map_err(|e| e.to_string())?;
                    table::play_seeded(replay, &moves, &mover, &keys.others(me), seed)
                        .map_err(refusal)
                })
            }
            Command::Resign(id) => {
                let id = self.which_game(work, player, id.as_deref(), context)?;
                self.act(work, key, from, &id, |replay, keys, me| {
                    let who = keys.signer(me).ok_or("no key for you in this game")?;
                    table::resign(replay, &who)
                        .map(|e| vec![e])
                        .map_err(|e| e.to_string())
                })
            }
            Command::Offer(kind, id) => {
                let id = self.which_game(work, player, id.as_deref(), context)?;
                let kind = *kind;
                self.act(work, key, from, &id, |replay, keys, me| {
                    let who = keys.signer(me).ok_or("no key for you in this game")?;
                    match kind {
                        Offer::Draw => table::offer_draw(replay, &who)
                            .map(|e| vec![e])
                            .map_err(|e| e.to_string()),
                        Offer::Takeback => offer_takeback(replay, &who),
                    }
                })
            }
            Command::Answer(kind, accepted, id) => {
                let id = self.which_game(work, player, id.as_deref(), context)?;
                let (kind, accepted) = (*kind, *accepted);
                self.act(work, key, from, &id, |replay, keys, me| {
                    let who = keys.signer(me).ok_or("no key for you in this game")?;
                    match kind {
                        Offer::Draw => table::answer_draw(replay, &who, accepted)
                            .map(|e| vec![e])
                            .map_err(|e| e.to_string()),
                        Offer::Takeback => table::answer_takeback(replay, &who, accepted)
                            .map(|e| vec![e])
                            .map_err(|e| e.to_string()),
                    }
                })
            }
        }
    }

    /// The game's meta, if `from` plays in it (or may join it).
    fn member(&self, work: &Work, from: &str, id: &str) -> Result<GameMeta, String> {
        let meta = self
            .meta(work, id)
            .ok_or_else(|| format!("there is no game {id}"))?;
        // A witnessed game's members are the addresses of its known keys
        // (its seats); its first mail's From proves nothing.
        if meta.seats.iter().any(|s| s == from) || (!meta.witness && meta.challenger == from) {
            Ok(meta)
        } else {
            Err(format!("you are not a player of {id}"))
        }
    }

    fn load(&self, work: &Work, id: &str) -> Result<Loaded, String> {
        let meta = self
            .meta(work, id)
            .ok_or_else(|| format!("there is no game {id}"))?;
        let text = self
            .read(work, &record_path(id))
            .ok_or_else(|| format!("{id} has no record yet"))?;
        let catalog = RecordRulesets::beside(&self.root().join(record_path(id)));
        let kind = GameKind::from_name(&meta.game).ok_or("unknown game")?;
        // The ruleset kept beside the record is a file of the store.
        let ruleset = catalog.load_ruleset(kind, &meta.ruleset).map_err(|e| {
            self.note_unreadable(&record_path(id), format!("its ruleset: {e}"));
            e.to_string()
        })?;
        let hash = ruleset.hash();
        // Read before in this run from exactly this text: the same game.
        if let Some((text, replay)) = self.read_games.borrow_mut().get(id, &text, &hash) {
            return Ok(Loaded {
                meta,
                text,
                replay,
                ruleset,
            });
        }
        let (text, replay) = match self.restored_from_tip(id, text, &catalog) {
            Ok(restored) => restored,
            Err(text) => self.read_whole(work, id, text, &catalog)?,
        };
        let replay = Rc::new(replay);
        self.read_games.borrow_mut().keep(ReadGame {
            id: id.to_owned(),
            ruleset: hash,
            text: text.clone(),
            replay: Rc::clone(&replay),
        });
        Ok(Loaded {
            meta,
            text,
            replay,
            ruleset,
        })
    }

    /// The game `id`'s record `text` restored from the game's tip, if the
    /// tip is one of exactly this text (the record is not read, nor its
    /// events walked); the text back otherwise.
    fn restored_from_tip(
        &self,
        id: &str,
        text: String,
        catalog: &RecordRulesets,
    ) -> Result<(RecordText, SignedReplay), String> {
        let Some(tip) = checkpoint::read_tip(&self.root().join(tip_path(id)), text.len()) else {
            return Err(text);
        };
        let Some((replay, bounds, digest)) =
            Tip::restore(&(std::sync::Arc::new(tip) as SharedBytes), &text, catalog)
        else {
            return Err(text);
        };
        let text = RecordText {
            text: Rc::new(text),
            whole: None,
            bounds: Some(bounds),
            digest: Some(digest),
        };
        Ok((text, replay))
    }

    /// The game `id`'s record `text` read and replayed whole (its events
    /// that the game's checkpoint vouches for not checked for their
    /// signatures again), and its tip written for the next run.
    fn read_whole(
        &self,
        work: &Work,
        id: &str,
        text: String,
        catalog: &RecordRulesets,
    ) -> Result<(RecordText, SignedReplay), String> {
        // The signed view and the record in one reading.
        let damaged = |why: String| {
            self.note_unreadable(&record_path(id), why);
            format!("{id}: the stored record cannot be read")
        };
        let mut games =
            read_signed_with_record(text.as_bytes()).map_err(|e| damaged(e.to_string()))?;
        let (signed, record) = match games.as_mut_slice() {
            [Ok((one, record))] => (std::mem::take(one), record.take()),
            [Err(e)] => return Err(damaged(e.to_string())),
            _ => return Err(damaged("not one signed game".to_owned())),
        };
        let kept = self
            .read(work, &checkpoint_path(id))
            .and_then(|text| checkpoint::from_text(&text));
        let replay = replay_text_knowing(&signed, catalog, checkpoint::known(kept.as_ref()))
            .map_err(|e| {
                let fault = crate::game::record::RecordFault::from(e);
                self.note_unreadable(&record_path(id), fault.to_string());
                format!("{id}: the stored record does not verify")
            })?;
        let record = match record {
            Some(record) => record,
            None => parse_record::<RawGrammar>(&text).map_err(|e| e.to_string())?,
        };
        let bounds = Bounds::of(&text, &signed);
        let mut text = RecordText {
            text: Rc::new(text),
            whole: Some((Rc::new(record), Rc::new(signed))),
            bounds,
            digest: None,
        };
        self.keep_tip(id, &mut text, &replay);
        Ok((text, replay))
    }

    /// Writes the game's tip of `replay`, the replay of `text`. A tip that
    /// cannot be written costs the next run's first command of the game a
    /// whole reading, nothing else: said in the log, and the game goes on.
    fn keep_tip(&self, id: &str, text: &mut RecordText, replay: &SignedReplay) {
        match checkpoint::keep_tip(
            &self.root().join(tip_path(id)),
            replay,
            &text.text,
            text.bounds,
            text.digest.as_ref(),
        ) {
            Ok(digest) => text.digest = digest,
            Err(e) => {
                text.digest = None;
                super::log(&format!(
                    "{id}: the game's tip was not written ({e}); the next run reads the record whole"
                ));
            }
        }
    }

    fn keys(&self, work: &Work, loaded: &Loaded) -> Result<Keys, String> {
        let game = loaded
            .replay
            .events()
            .first()
            .map(|e| e.event.game.clone())
            .ok_or("no opening")?;
        // The identities the parties' keys are held under: the seated
        // players' and the robot's own (a solo game's other side), so the
        // seeds of the store's other players stay closed.
        let players: Vec<Player> = loaded
            .meta
            .seats
            .iter()
            .filter_map(|address| self.player(work, address))
            .collect();
        let names: Vec<&str> = players
            .iter()
            .map(|p| p.identity.as_str())
            .chain([ROBOT_IDENTITY])
            .collect();
        let mut parties = Vec::new();
        for party in loaded.replay.parties() {
            let identity = self
                .secrets
                .identity_among(&names, &party.key)
                .map_err(|e| self.secret_fault(e).to_string())?
                .ok_or_else(|| {
                    self.secret_fault("a party's key of this game is not in the robot's secrets")
                })?;
            let chain = self
                .secrets
                .chain(&game, &identity)
                .map_err(|e| self.secret_fault(e).to_string())?;
            parties.push((identity, chain));
        }
        Ok(Keys { parties })
    }

    /// Runs `f` on the game as the sender, then writes the new record.
    fn act(
        &self,
        work: &mut Work,
        key: &str,
        from: &str,
        id: &str,
        f: impl FnOnce(&mut SignedReplay, &Keys, &PublicKey) -> Result<Vec<SignedEvent>, String>,
    ) -> Result<Answer, String> {
        let meta = self.member(work, from, id)?;
        if meta.witness {
            return Err(witnessed_only(id));
        }
        if meta.stage == Stage::Pending {
            return Err(format!("{id} has not started: it waits for `join {id}`"));
        }
        let mut loaded = self.load(work, id)?;
        let player = self.player(work, from).ok_or("unknown player")?;
        let me = self
            .secrets
            .identity(&player.identity)
            .map_err(|e| self.secret_fault(e).to_string())?
            .0
            .key
            .public_key();
        let keys = self.keys(work, &loaded)?;
        let mut replay = SignedReplay::clone(&loaded.replay);
        let events = match f(&mut replay, &keys, &me) {
            Ok(e) => e,
            Err(e) => {
                return Ok(Answer {
                    text: format!("Refused: {e}\n\n{}", self.status(&loaded, Some(from))),
                    game: Some(id.to_owned()),
                });
            }
        };
        let after = self.commit(work, &mut loaded, &replay, &events)?;
        loaded.replay = after;
        loaded.meta.changed_by(&events, &loaded.replay, self.now);
        if loaded.replay.ending().is_some() {
            loaded.meta.stage = Stage::Over;
        }
        let summary = events_text(&loaded.replay, &loaded.meta.seats, &events);
        self.put_meta(work, &loaded.meta);
        work.log.push(format!("{key}: {id}: {}", summary.trim()));
        self.notify_others(
            work,
            key,
            from,
            &loaded.meta,
            &format!(
                "{summary}\n{}",
                self.status(&loaded, only_other(&loaded.meta, from))
            ),
        );
        Ok(Answer {
            text: format!("{summary}\n{}", self.status(&loaded, Some(from))),
            game: Some(id.to_owned()),
        })
    }

    /// Appends `events`, which `after` (a copy of the game's replay) has
    /// proved and played, to the record, checks that it verifies, and
    /// queues it. The events are printed after the text's verified part
    /// and only they are walked again, as a desk's turn is
    /// (`crate::game::record::append_turn`), so that a command costs the
    /// same late in a long game as early; a text that cannot be continued
    /// so is printed and checked whole, as before. The game's tip is
    /// written for the next run.
    fn commit(
        &self,
        work: &mut Work,
        loaded: &mut Loaded,
        after: &SignedReplay,
        events: &[SignedEvent],
    ) -> Result<Rc<SignedReplay>, String> {
        let id = loaded.meta.id.clone();
        // The record is changed where it is: nothing else may hold it.
        self.read_games.borrow_mut().forget(&id);
        let from = loaded.replay.events().len();
        let played = after.events().len() == from + events.len();
        let continued = match loaded.text.bounds {
            Some(bounds) if played => {
                let mut text = String::clone(&loaded.text.text);
                append_verified_in_place(&mut text, bounds, after, from, None).and_then(
                    |appended| match replay_continued(
                        &text,
                        &appended,
                        &loaded.replay,
                        Known::Log(after.events()),
                    ) {
                        After::Replayed { replay, bounds } => Some((text, *replay, bounds)),
                        // A defect of Yam's own printing: the whole way
                        // below prints the record canonically and says
                        // what is wrong.
                        After::Whole => None,
                    },
                )
            }
            _ => None,
        };
        let (text, replay) = match continued {
            Some((text, replay, bounds)) => (
                RecordText {
                    text: Rc::new(text),
                    whole: None,
                    bounds,
                    digest: loaded.text.digest.take(),
                },
                replay,
            ),
            None => {
                let (mut record, signed) = loaded.text.whole()?;
                // Held here alone, changed where it is.
                loaded.text.whole = None;
                let appended = crate::game::record::append_checked(
                    Rc::make_mut(&mut record),
                    &loaded.replay,
                    Some(&signed),
                    events,
                    None,
                    &self.root().join(record_path(&id)),
                )
                .map_err(|e| e.to_string())?;
                let bounds = Bounds::of(&appended.text, &appended.signed);
                // A text printed anew need not begin with the bytes the
                // last tip's digest is of: no digest, the tip hashes them.
                let text = RecordText {
                    text: Rc::new(appended.text),
                    whole: Some((record, Rc::new(appended.signed))),
                    bounds,
                    digest: None,
                };
                (text, appended.replay)
            }
        };
        loaded.text = text;
        self.keep_tip(&id, &mut loaded.text, &replay);
        let after = Rc::new(replay);
        // The next mail of this game finds it as written (if it is).
        self.read_games.borrow_mut().keep(ReadGame {
            id: id.clone(),
            ruleset: loaded.ruleset.hash(),
            text: loaded.text.clone(),
            replay: Rc::clone(&after),
        });
        work.writes
            .insert(record_path(&id), String::clone(&loaded.text.text));
        if let Some(now) = Checkpoint::of(&after) {
            work.writes
                .insert(checkpoint_path(&id), checkpoint::to_text(&now));
        }
        Ok(after)
    }

    /// Tells the other players what happened.
    fn notify_others(&self, work: &mut Work, key: &str, from: &str, meta: &GameMeta, text: &str) {
        let others: Vec<String> = meta.seats.iter().filter(|s| *s != from).cloned().collect();
        if others.is_empty() {
            return;
        }
        let n = work.mails.len();
        let message_id = self.message_id(key, n, Some(&meta.id));
        work.mails.push(OutMail {
            to: others,
            subject: format!(
                "[Yam] {} {}: {}",
                meta.game,
                meta.id,
                meta.seats.join(" vs ")
            ),
            body: format!("{text}\n(Reply to this mail with your commands and your token.)\n"),
            message_id: message_id.clone(),
            in_reply_to: meta.thread.last().cloned(),
            references: meta.thread.clone(),
            game: Some(meta.id.clone()),
            attachment: self.attachment(work, &meta.id),
        });
        if let Some(mut m) = self.meta(work, &meta.id) {
            crate::mail::thread::add(&mut m.thread, &message_id);
            self.put_meta(work, &m);
        }
    }

    fn list(&self, work: &Work, player: &Player) -> String {
        if player.games.is_empty() {
            return "You have no games yet. Expected: `challenge GAME [RULESET] [ADDRESS]`.\n"
                .into();
        }
        let mut out = format!("Your register: {} game(s) started.\n", player.games.len());
        for id in &player.games {
            let Some(meta) = self.meta(work, id) else {
                continue;
            };
            let state = match meta.stage {
                Stage::Pending => "waiting for a player to join".to_owned(),
                Stage::Over => "over".to_owned(),
                Stage::Active => match self.load(work, id) {
                    Ok(l) => to_move_text(&l),
                    Err(e) => e,
                },
            };
            out.push_str(&format!(
                "  {id}  {} ({})  {}  {state}\n",
                meta.game,
                meta.ruleset,
                meta.seats.join(" vs ")
            ));
        }
        out
    }

    /// The board, whose turn, and the legal moves; `reader` is the address
    /// it goes to (none: every player of the game), for what is the
    /// reader's alone ([`siege_hint`]).
    fn status(&self, loaded: &Loaded, reader: Option<&str>) -> String {
        let replay = &loaded.replay;
        let mut out = format!(
            "{} {} ({} ruleset), {}, ply {}\n\n",
            loaded.meta.game,
            loaded.meta.id,
            loaded.meta.ruleset,
            loaded.meta.seats.join(" vs "),
            replay.plies()
        );
        out.push_str(&board(replay, &loaded.ruleset));
        out.push('\n');
        out.push_str(&to_move_text(loaded));
        out.push('\n');
        for offer in replay.open_offers() {
            let by = seat_name(replay, &loaded.meta.seats, &offer.author);
            out.push_str(&match (offer.kind, offer.back_to) {
                (OfferKind::Takeback, Some(back_to)) => format!(
                    "A take-back is offered by {by}, back to the game as it stood after event #{back_to}.\n"
                ),
                _ => format!("A draw is offered by {by}.\n"),
            });
        }
        // The answer the game waits for, and how to give it: the player
        // it waits on reads this above the board of the player to move.
        match table::next_duty(replay) {
            Some(table::Duty::AnswerDraw(k)) => out.push_str(&format!(
                "{} is to answer the draw offer: `accept draw {id}` or `decline draw {id}`.\n",
                seat_name(replay, &loaded.meta.seats, &k),
                id = loaded.meta.id
            )),
            Some(table::Duty::AnswerTakeback(k)) => out.push_str(&format!(
                "{} is to answer the take-back offer: `accept takeback {id}` or `decline takeback {id}`.\n",
                seat_name(replay, &loaded.meta.seats, &k),
                id = loaded.meta.id
            )),
            _ => {}
        }
        if roll::layout_pending(replay) {
            out.push_str(&format!(
                "The Foe rows are laid out by your first mail, with its seed: reply `move {} start #{}` and a line `seed: any words`.\n",
                loaded.meta.id,
                replay.plies()
            ));
        } else if !loaded.meta.witness
            && replay.ending().is_none()
            && let Some(text) = siege_hint(loaded, reader)
        {
            out.push_str(&text);
        } else if !loaded.meta.witness
            && replay.ending().is_none()
            && replay.to_move_key().is_some()
        {
            let moves = replay.game().legal_moves();
            if !moves.is_empty() {
                let shown: Vec<&str> = moves.iter().take(HINTS).map(String::as_str).collect();
                out.push_str(&format!(
                    "Legal moves ({}): {}{}\n",
                    moves.len(),
                    shown.join(" "),
                    if moves.len() > HINTS { " ..." } else { "" }
                ));
                out.push_str(&format!(
                    "Reply: move {} {} #{}\n",
                    loaded.meta.id,
                    shown.first().copied().unwrap_or("MOVE"),
                    replay.plies()
                ));
            }
        }
        out
    }

    #[allow(clippy::too_many_arguments)]
    fn challenge(
        &self,
        work: &mut Work,
        key: &str,
        from: &str,
        player: &mut Player,
        game: &str,
        ruleset: Option<&str>,
        invited: Option<&str>,
        second: bool,
    ) -> Result<Answer, String> {
        let kind = GameKind::from_name(game).ok_or_else(|| {
            format!("unknown game {game:?}; expected khan, castle-siege or genghis-khan")
        })?;
        let name = ruleset.unwrap_or(match kind {
            GameKind::Khan => "magician",
            // CS-P4: the robot answers every roll at once, so a Castle
            // Siege turn can be played as its rules say, one order per mail;
            // `standard`, named, keeps CS-P1's whole turn per mail.
            GameKind::CastleSiege => "standard-faithful",
            GameKind::GenghisKhan => "standard",
        });
        let loaded = yam_referee::replay::load_ruleset(kind, name).map_err(|e| e.to_string())?;
        let solo = yam_referee::replay::start(&loaded)
            .map_err(|e| e.to_string())?
            .seats()
            .len()
            == 1;
        if invited.is_some_and(|a| a.parse::<lettre::Address>().is_err()) {
            return Err(format!(
                "{:?} is not a mail address; expected one such as bob@example.org",
                invited.unwrap_or_default()
            ));
        }
        if invited.is_some_and(|a| a == from || a == self.address) {
            return Err("expected the address of another player".into());
        }
        if solo && invited.is_some() {
            return Err(format!(
                "{kind} is a solo game against the robot: expected no address"
            ));
        }
        // Invitations are mail to someone who asked for nothing: a few a
        // day for each player, and each expires unanswered.
        if let Some(invited) = invited {
            // A game the robot made names the day it was made (`KIND-
            // YYYYMMDD-XXXXXXXX`): one made before yesterday is no
            // invitation of the last day, and is not read (a player of
            // years had every game of her register read at each
            // invitation: `an_invitation_reads_no_game_of_its_challenger_that_is_over`).
            // Days ahead of the clock count too: a clock set back across
            // midnight made the last minutes' invitations name "tomorrow",
            // and gave a fresh day's allowance
            // (`a_clock_set_back_across_midnight_gives_no_fresh_day_of_invitations`).
            let yesterday =
                super::clock::date_tag(self.now.saturating_sub(86_400)).replace('.', "");
            let today = player
                .games
                .iter()
                .filter(|g| made_on(g).is_none_or(|day| day >= yesterday.as_str()))
                .filter_map(|g| self.meta(work, g))
                .filter(|m| {
                    m.challenger == from
                        && m.invited.is_some()
                        && m.created.unwrap_or(m.last_activity) + 86_400 > self.now
                })
                .count();
            if today >= self.settings.invitations_per_day as usize {
                return Err(format!(
                    "you have sent {today} invitations today, the most a player may send in a day; expected a challenge without an address (anyone may join), or try again tomorrow"
                ));
            }
            if self.player(work, invited).is_none_or(|p| p.unheard)
                && !self.may_answer_unauthenticated(work, key, hygiene::Answer::Welcome, invited)
            {
                return Err(format!(
                    "{invited} has had a mail from the robot today already; try again tomorrow"
                ));
            }
        }
        let random = random_32().map_err(|e| e.to_string())?;
        let id = format!(
            "{}-{}-{}",
            kind.name().to_ascii_lowercase().replace(' ', "-"),
            super::clock::date_tag(self.now).replace('.', ""),
            hex::encode(&random[..4])
        );
        let mut meta = GameMeta {
            created: Some(self.now),
            id: id.clone(),
            game: kind.name().to_owned(),
            ruleset: loaded.name.clone(),
            stage: Stage::Pending,
            challenger: from.to_owned(),
            invited: invited.map(str::to_owned),
            challenger_second: second,
            seats: Vec::new(),
            thread: Vec::new(),
            last_activity: self.now,
            reminders_sent: Vec::new(),
            reminders_since: None,
            equivocation: None,
            resignation_owed: None,
            witness: false,
            bound: Vec::new(),
            silence: SilenceClock::default(),
        };
        player.games.push(id.clone());
        self.put_player(work, player);
        if solo {
            meta.seats = vec![from.to_owned()];
            self.start(work, &mut meta, &loaded)?;
            work.log.push(format!("{key}: {from} started {id}"));
            let loaded = self.load(work, &id)?;
            return Ok(Answer {
                text: format!(
                    "New {} game {id}, against the robot; every card is drawn through the robot's chain and yours,\n\
                     with your seed. The record attached verifies with `yam verify {id}.yam`.\n\n{}",
                    meta.game,
                    self.status(&loaded, Some(from))
                ),
                game: Some(id),
            });
        }
        self.put_meta(work, &meta);
        if let Some(invited) = invited {
            self.invite(work, key, from, invited, &meta);
        }
        work.log.push(format!(
            "{key}: {from} challenged {} to {id}",
            invited.unwrap_or("anyone")
        ));
        Ok(Answer {
            text: format!(
                "New {} game {id} ({} ruleset): waiting for {} to send `join {id}`.\n",
                meta.game,
                meta.ruleset,
                invited.unwrap_or("any player")
            ),
            game: None,
        })
    }

    fn invite(&self, work: &mut Work, key: &str, from: &str, invited: &str, meta: &GameMeta) {
        let mut text = format!(
            "{from} challenges you to a game of {} ({} ruleset), refereed by the Yam robot.\n\n\
             To play, reply with the lines\n\n  join {}\n  token: YOUR-TOKEN\n\n",
            meta.game, meta.ruleset, meta.id
        );
        if self.player(work, invited).is_none() {
            // The token goes to the invited address alone, which is what
            // makes it that address's.
            match self.new_token(work, invited) {
                Ok(token) => {
                    let mut p = Player::new(invited, &token, self.now);
                    p.unheard = true;
                    self.put_player(work, &p);
                    text.push_str(&format!(
                        "You are new to the robot: your token is  {token}\nKeep it to yourself; every mail you send the robot carries it.\n\n"
                    ));
                }
                Err(e) => work.log.push(format!("error: {e}")),
            }
        }
        text.push_str(command::HELP);
        let n = work.mails.len();
        work.mails.push(OutMail {
            to: vec![invited.to_owned()],
            subject: format!("[Yam] {from} challenges you: {} {}", meta.game, meta.id),
            body: text,
            message_id: self.message_id(key, n, Some(&meta.id)),
            in_reply_to: None,
            references: Vec::new(),
            game: Some(meta.id.clone()),
            attachment: None,
        });
    }

    fn join(
        &self,
        work: &mut Work,
        key: &str,
        from: &str,
        player: &mut Player,
        id: &str,
    ) -> Result<Answer, String> {
        let mut meta = self
            .meta(work, id)
            .ok_or_else(|| format!("there is no game {id}"))?;
        if meta.witness {
            return Err(witnessed_only(id));
        }
        if meta.stage != Stage::Pending {
            return Err(format!("{id} has started already"));
        }
        if meta.challenger == from {
            return Err(format!(
                "{id} is your own challenge; expected another player to join it"
            ));
        }
        if meta.invited.as_deref().is_some_and(|i| i != from) {
            return Err(format!("{id} is a challenge to another player"));
        }
        let kind = GameKind::from_name(&meta.game).ok_or("unknown game")?;
        let ruleset =
            yam_referee::replay::load_ruleset(kind, &meta.ruleset).map_err(|e| e.to_string())?;
        meta.seats = if meta.challenger_second {
            vec![from.to_owned(), meta.challenger.clone()]
        } else {
            vec![meta.challenger.clone(), from.to_owned()]
        };
        player.games.push(id.to_owned());
        self.put_player(work, player);
        self.start(work, &mut meta, &ruleset)?;
        let loaded = self.load(work, id)?;
        work.log.push(format!("{key}: {from} joined {id}"));
        self.notify_others(
            work,
            key,
            from,
            &loaded.meta,
            &format!(
                "{from} joined {id}. The game begins.\n\n{}",
                self.status(&loaded, only_other(&loaded.meta, from))
            ),
        );
        Ok(Answer {
            text: format!(
                "You joined {id}. The game begins.\n\n{}",
                self.status(&loaded, Some(from))
            ),
            game: Some(id.to_owned()),
        })
    }

    /// Opens the game: keys, chains, the signed opening, the register.
    fn start(
        &self,
        work: &mut Work,
        meta: &mut GameMeta,
        ruleset: &LoadedRuleset,
    ) -> Result<(), String> {
        let game = GameId::new(meta.id.clone()).map_err(|e| e.to_string())?;
        let kind = GameKind::from_name(&meta.game).ok_or("unknown game")?;
        let identity = |address: &str| -> Result<Identity, String> {
            let p = self.player(work, address).ok_or("unknown player")?;
            Ok(self
                .secrets
                .identity(&p.identity)
                .map_err(|e| self.secret_fault(e).to_string())?
                .0)
        };
        let solo = meta.seats.len() == 1;
        let seat = |n: usize| meta.seats.get(n).ok_or("a seat has no player");
        let (first, second) = if solo {
            let robot = self
                .secrets
                .identity(ROBOT_IDENTITY)
                .map_err(|e| self.secret_fault(e).to_string())?
                .0;
            (robot, identity(seat(0)?)?)
        } else {
            (identity(seat(0)?)?, identity(seat(1)?)?)
        };
        let chain = |i: &Identity| -> Result<HashChain, String> {
            match self
                .secrets
                .chain(&game, i)
                .map_err(|e| self.secret_fault(e).to_string())?
            {
                // A chain drawn by an attempt that crashed before it was
                // journaled: never used in any record, so still secret.
                Some(c) => Ok(c),
                None => self
                    .secrets
                    .new_chain(&game, i, chain_length(kind, ruleset))
                    .map_err(|e| self.secret_fault(e).to_string()),
            }
        };
        let (c1, c2) = (chain(&first)?, chain(&second)?);
        let s1 = Signer {
            key: &first.key,
            chain: Some(&c1),
        };
        let s2 = Signer {
            key: &second.key,
            chain: Some(&c2),
        };
        let opening = Opening {
            game: game.clone(),
            ruleset: ruleset.clone(),
            // Two-player games too: the robot holds both players' keys and
            // chains, so no party of the game is independent of it, and the
            // mode says so (`docs/fair-play.md`, section 2).
            mode: Mode::Robot,
            challenger: s1,
            acceptor: s2,
            seating: if solo {
                Seating::Refereed
            } else {
                Seating::Chosen {
                    challenger_first: true,
                }
            },
        };
        let catalog = RecordRulesets::beside(&self.root().join(record_path(&meta.id)));
        let before = SignedReplay::start(&catalog, ruleset).map_err(|e| e.to_string())?;
        let (_, events) = if solo {
            roll::open_refereed(&catalog, &opening)
        } else {
            table::open(&catalog, &opening)
        }
        .map_err(|e| e.to_string())?;
        let date = crate::game::header::date_tag(self.now);
        let tags = crate::game::header::Header {
            game: kind,
            ruleset,
            ruleset_tag: &ruleset.name,
            id: game.as_str(),
            date: &date,
            event: Some("Yam robot"),
            site: Some(&self.address),
            players: &meta.seats,
        }
        .tags();
        let mut record: Record<String> = Record::new(tags);
        let text = crate::game::record::append_checked(
            &mut record,
            &before,
            None,
            &events,
            None,
            &self.root().join(record_path(&meta.id)),
        )
        .map_err(|e| e.to_string())?
        .text;
        // The register: the opening of every game started, per player, as
        // signed, so a ladder can count them.
        for address in &meta.seats {
            work.writes.insert(
                format!(
                    "robot/register/{}/{}.yam",
                    auth::address_key(address),
                    meta.id
                ),
                text.clone(),
            );
        }
        work.writes.insert(record_path(&meta.id), text);
        meta.stage = Stage::Active;
        meta.last_activity = self.now;
        // The first move is due from the start.
        meta.silence.move_due_since = Some(self.now);
        self.put_meta(work, meta);
        Ok(())
    }

    /// Reminders and forfeits owed by silent games, keyed by the game and
    /// the day, so each is decided once.
    /// `waiting`: the senders whose mail the robot holds unanswered; no
    /// forfeit is claimed against them this time.
    pub fn deadlines(&self, waiting: &std::collections::HashSet<String>) -> Vec<(String, Work)> {
        let mut out = Vec::new();
        let live = self.store.root().join(LIVE);
        // The games that may owe something, by the index; without one,
        // every game the robot keeps (a challenge not yet joined has its
        // bookkeeping and no record), once, to make it.
        let index = self.live_index();
        let indexed = index.is_some();
        let games = index.unwrap_or_else(|| {
            std::fs::read_dir(self.store.root().join("games"))
                .map(|entries| {
                    entries
                        .flatten()
                        .filter(|e| e.path().join("robot.yaml").is_file())
                        .filter_map(|e| e.file_name().to_str().map(str::to_owned))
                        .filter(|name| !name.starts_with('.'))
                        .map(|id| {
                            let marked = LiveEntry {
                                marked: true,
                                hints: Vec::new(),
                            };
                            (id, marked)
                        })
                        .collect()
                })
                .unwrap_or_default()
        });
        // The hints hold for the clock settings they were worked out with
        // (`.settings`); others, and they are looked at again.
        let settings = self.clock_settings();
        let hints_hold = indexed
            && std::fs::read_to_string(live.join(LIVE_SETTINGS)).is_ok_and(|s| s == settings);
        // Hints are made anew under other settings: the old settings go
        // first, durably, and the new are written once every game has its
        // hint. A look cut between would otherwise leave hints of the new
        // settings under the name of the old, trusted if the operator went
        // back to them (a reminder of the old settings passed over until
        // the new ones' date).
        if indexed && !hints_hold {
            match std::fs::remove_file(live.join(LIVE_SETTINGS)) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    self.note_unreadable(&format!("{LIVE}/{LIVE_SETTINGS}"), e.to_string());
                    return out;
                }
                _ => {
                    #[cfg(unix)]
                    let _ = std::fs::File::open(&live).and_then(|d| d.sync_all());
                }
            }
        }
        let mut hints_made = 0usize;
        let mut still_live = Vec::new();
        for (id, LiveEntry { marked, hints }) in games {
            if !marked && hints_hold && hints.iter().all(|(_, next)| *next > self.now) {
                still_live.push(id);
                continue;
            }
            let noted = self.unreadable.borrow().len();
            let over = match self.meta(&Work::default(), &id) {
                Some(meta) if meta.stage == Stage::Over => true,
                Some(meta) => {
                    still_live.push(id.clone());
                    // The hint for the next look: nothing is due before
                    // `next`. Made before the marker it replaces goes, so
                    // a crash between leaves a marker that is looked at.
                    // A hint that cannot be made (a disk out of space or
                    // inodes) leaves the marker and the old hints as they
                    // are: removed all the same, the game was out of the
                    // index for good, its expiry, reminders and forfeit
                    // never decided again
                    // (`a_hint_that_cannot_be_made_does_not_take_the_game_out_of_the_index`).
                    if indexed {
                        let next = self.next_due(&meta);
                        let hint = format!("{id}@{next}");
                        let made = hints.iter().any(|(name, _)| *name == hint)
                            || std::fs::File::create(live.join(&hint)).is_ok();
                        if made {
                            if marked {
                                let _ = std::fs::remove_file(live.join(&id));
                            }
                            for (name, _) in hints.iter().filter(|(name, _)| *name != hint) {
                                let _ = std::fs::remove_file(live.join(name));
                            }
                        }
                        hints_made += usize::from(made);
                        if hints_made == 1 && !hints_hold {
                            super::journal::kill_point("after-a-hint");
                        }
                    }
                    false
                }
                // Unreadable (said by the runner) or gone: kept for now.
                None => {
                    let gone = indexed && !self.store.root().join(meta_path(&id)).exists();
                    if !gone {
                        still_live.push(id.clone());
                    }
                    gone
                }
            };
            if over {
                // Over since its marker was made: out of the index.
                if indexed {
                    let _ = std::fs::remove_file(live.join(&id));
                    for (name, _) in &hints {
                        let _ = std::fs::remove_file(live.join(name));
                    }
                }
                continue;
            }
            let due = self.deadline(&id, waiting);
            // Nothing is decided on a game whose files are damaged; the
            // runner takes the faults and says so.
            if self.unreadable.borrow().len() == noted {
                out.extend(due);
            }
            // What was read for this game is not kept for the rest of the
            // look: a look over fifty thousand games kept them all (92 MB).
            self.forget_meta(&id);
        }
        if !indexed {
            let _ = make_live_index(&live, &still_live);
        }
        if indexed && !hints_hold {
            let _ =
                crate::store::atomic::write(&live.join(LIVE_SETTINGS), settings.as_bytes(), true);
        }
        out
    }

    /// The games the index of live games holds (a marker `ID`, or a hint
    /// `ID@NEXT`), from one listing of it; `None` when the store has no
    /// complete index yet (every game may then be live).
    fn live_ids(&self) -> Option<std::collections::BTreeSet<String>> {
        self.live_index().map(|games| games.into_keys().collect())
    }

    /// The index of live games, by game (`None` while it is not complete,
    /// a store of an earlier build): each game's markers, the one its
    /// bookkeeping's writer made (`ID`: look at it) and the hints a look
    /// left (`ID@NEXT`: nothing is due before NEXT). The one reading of
    /// the index's folder, for the deadlines and for a move that names no
    /// game alike.
    fn live_index(&self) -> Option<BTreeMap<String, LiveEntry>> {
        let live = self.store.root().join(LIVE);
        if !live.join(LIVE_INDEXED).is_file() {
            return None;
        }
        let mut games: BTreeMap<String, LiveEntry> = BTreeMap::new();
        for entry in std::fs::read_dir(&live).ok()?.flatten() {
            let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                continue;
            };
            if name.starts_with('.') {
                continue;
            }
            match name.split_once('@') {
                Some((id, next)) => {
                    let next = next.parse().unwrap_or(0);
                    let hint = (name.clone(), next);
                    games.entry(id.to_owned()).or_default().hints.push(hint);
                }
                None => games.entry(name).or_default().marked = true,
            }
        }
        Some(games)
    }

    /// The clock settings the deadlines' hints are worked out with.
    fn clock_settings(&self) -> String {
        format!(
            "reminders {:?} forfeit {} invitation_days {}\n",
            self.settings.reminders, self.settings.forfeit, self.settings.invitation_days
        )
    }

    /// The earliest time anything can be due on the game `meta` keeps
    /// (its expiry, its next reminder, its forfeit), as [`Robot::deadline`]
    /// decides them; `u64::MAX` when nothing runs on it. Every later change
    /// of the game writes its bookkeeping, and its marker with it, so the
    /// next look works this out again.
    fn next_due(&self, meta: &GameMeta) -> u64 {
        let day = 86_400u64;
        match meta.stage {
            Stage::Pending if !meta.witness => meta
                .last_activity
                .saturating_add(u64::from(self.settings.invitation_days) * day),
            Stage::Active if meta.equivocation.is_none() => {
                if meta.witness && meta.reminders_sent_now().contains(&self.settings.forfeit) {
                    return u64::MAX;
                }
                // Only the latest reminder due is ever sent (`clock::due`):
                // a day at or before the last one sent never comes again.
                let last_sent = meta.reminders_sent_now().iter().copied().max().unwrap_or(0);
                let next_day = self
                    .settings
                    .reminders
                    .iter()
                    .copied()
                    .chain([self.settings.forfeit])
                    .filter(|d| *d > last_sent)
                    .min()
                    .unwrap_or(self.settings.forfeit);
                meta.silent_since()
                    .saturating_add(u64::from(next_day) * day)
            }
            _ => u64::MAX,
        }
    }

    /// The plans that bring the games of `work`, a plan whose mails went
    /// out only now (it was blocked: the robot's relay refused them, for a
    /// day or a month), their silences counted from now: a player cannot
    /// answer a move the robot has not mailed him, and counted from the
    /// decision the robot claimed a forfeit against a player eleven days
    /// after the move reached him (docs/mail.md, "A silence starts when
    /// its mail goes out", which the desks keep too). Only the silences
    /// the plan started (those that start when it was decided,
    /// `Work::decided_at`: a move, an offer; a reminder starts none), of a
    /// game whose bookkeeping is still as the plan wrote it (nothing is
    /// decided on a game while a plan holds it), that the robot plays out
    /// itself (a witnessed game's moves go between the players).
    pub fn mailed_late(&self, key: &str, work: &Work) -> Vec<(String, Work)> {
        let mut out = Vec::new();
        let Some(decided) = work.decided_at else {
            return out;
        };
        if work.mails.is_empty() || self.now <= decided {
            return out;
        }
        for (rel, text) in &work.writes {
            let Some(id) = rel
                .strip_prefix("games/")
                .and_then(|r| r.strip_suffix("/robot.yaml"))
            else {
                continue;
            };
            if self.read(&Work::default(), rel).as_deref() != Some(text.as_str()) {
                continue;
            }
            let Ok(mut meta) = serde_yaml_ng::from_str::<GameMeta>(text) else {
                continue;
            };
            if meta.witness || meta.stage == Stage::Over {
                continue;
            }
            // The date the plan gave a change of the game: its decision's,
            // or the game's last activity when the clock was behind it (a
            // change is never dated before the one before:
            // `GameMeta::changed_by`). A plan that changed nothing (a
            // reminder) left `last_activity` before its decision.
            let dated = decided.max(meta.last_activity);
            if self.now <= dated {
                continue;
            }
            let mut moved = false;
            for since in [
                &mut meta.silence.move_due_since,
                &mut meta.silence.answer_due_since,
                &mut meta.reminders_since,
            ] {
                if *since == Some(dated) {
                    *since = Some(self.now);
                    moved = true;
                }
            }
            if !moved {
                continue;
            }
            if meta.last_activity == dated {
                meta.last_activity = self.now;
            }
            let late_key = format!("late-{id}-{dated}-{}", self.now);
            let mut late = Work::default();
            self.put_meta(&mut late, &meta);
            late.log.push(format!(
                "{id}: the mails of {key} went out {} day(s) late: the silence they started counts from now",
                (self.now - dated) / 86_400
            ));
            out.push((late_key, late));
        }
        out
    }

    /// The reminder, forfeit or expiry game `id` owes now, if any.
    fn deadline(
        &self,
        id: &str,
        waiting: &std::collections::HashSet<String>,
    ) -> Option<(String, Work)> {
        let meta = self.meta(&Work::default(), id)?;
        // A robot game's challenge expires unjoined; a witnessed one is
        // the desks' to close (`yam withdraw`, `yam decline`).
        if meta.stage == Stage::Pending
            && !meta.witness
            && self.now.saturating_sub(meta.last_activity)
                >= u64::from(self.settings.invitation_days) * 86_400
        {
            let key = format!("expire-{id}-{}", meta.last_activity);
            let mut work = Work::default();
            self.expire(&mut work, &key, meta);
            return Some((key, work));
        }
        if meta.stage != Stage::Active {
            return None;
        }
        // A game whose history a key signed twice is a director's: no
        // clock runs on it.
        if meta.equivocation.is_some() {
            return None;
        }
        // A witnessed game's forfeit is the waiting player's to claim:
        // they are told once.
        if meta.witness && meta.reminders_sent_now().contains(&self.settings.forfeit) {
            return None;
        }
        let since = meta.silent_since();
        let days = self.now.saturating_sub(since) / 86_400;
        let (reminders, forfeit) = super::clock::due(
            days,
            &self.settings.reminders,
            self.settings.forfeit,
            meta.reminders_sent_now(),
        );
        // A player whose mail waits unanswered is not silent.
        let forfeit = forfeit && !meta.seats.iter().any(|s| waiting.contains(s));
        if reminders.is_empty() && !forfeit {
            return None;
        }
        let key = format!("deadline-{id}-{since}-{days}");
        let mut work = Work::default();
        match self.silence(&mut work, &key, id, &reminders, forfeit) {
            Ok(()) => Some((key, work)),
            Err(e) => {
                let mut w = Work::default();
                w.log.push(format!("{id}: deadline not handled: {e}"));
                Some((key, w))
            }
        }
    }

    /// A challenge nobody joined in time: over, and its challenger told.
    fn expire(&self, work: &mut Work, key: &str, mut meta: GameMeta) {
        meta.stage = Stage::Over;
        let days = self.settings.invitation_days;
        let body = format!(
            "Nobody joined your challenge {} ({} ruleset) in {days} days: it has expired.\n\nChallenge again with `challenge {}` when you like.\n",
            meta.id,
            meta.ruleset,
            meta.game.to_ascii_lowercase().replace(' ', "-")
        );
        let n = work.mails.len();
        work.mails.push(OutMail {
            to: vec![meta.challenger.clone()],
            subject: format!("[Yam] {} {}: the challenge expired", meta.game, meta.id),
            body,
            message_id: self.message_id(key, n, Some(&meta.id)),
            in_reply_to: meta.thread.last().cloned(),
            references: meta.thread.clone(),
            game: Some(meta.id.clone()),
            attachment: None,
        });
        work.log
            .push(format!("{}: the challenge expired unjoined", meta.id));
        self.put_meta(work, &meta);
    }

    fn silence(
        &self,
        work: &mut Work,
        key: &str,
        id: &str,
        reminders: &[u32],
        forfeit: bool,
    ) -> Result<(), String> {
        let mut loaded = self.load(work, id)?;
        if loaded.meta.witness {
            return self.witness_silence(work, key, loaded, reminders, forfeit);
        }
        // The party the game waits for, as the replay judges a claim
        // (`SignedReplay::owing`): the one an offer waits on, or a roll's
        // responder, not always the player to move (a claim against the
        // player to move would then be refused every day). When nobody or
        // several owe, or the one who owes has no seat (a solo game's
        // director, the robot itself), the player to move, as before.
        let owing = loaded.replay.owing();
        let Some(silent) = (match owing.as_slice() {
            [one] if loaded.replay.seat_of(one).is_some() => Some(*one),
            _ => loaded.replay.to_move_key(),
        }) else {
            return Ok(());
        };
        let seat = loaded.replay.seat_of(&silent).unwrap_or(0);
        let silent_address = loaded.meta.seats.get(seat).cloned().unwrap_or_default();
        if !forfeit {
            for day in reminders {
                loaded.meta.note_reminder(*day);
                // What is owed: an answer to an offer, or a move.
                let owed = match table::next_duty(&loaded.replay) {
                    Some(table::Duty::AnswerDraw(_)) => {
                        format!("a draw offer in {id} has waited for your answer")
                    }
                    Some(table::Duty::AnswerTakeback(_)) => {
                        format!("a take-back offer in {id} has waited for your answer")
                    }
                    _ => format!("it has been your move in {id}"),
                };
                let text = format!(
                    "Reminder: {owed} for {day} days. After {} days of silence the game is lost.\n\n{}",
                    self.settings.forfeit,
                    self.status(&loaded, Some(silent_address.as_str()))
                );
                self.mail_to(work, key, &loaded.meta, vec![silent_address.clone()], text);
                work.log
                    .push(format!("{id}: reminded {silent_address} after {day} days"));
            }
            self.put_meta(work, &loaded.meta);
            return Ok(());
        }
        let keys = self.keys(work, &loaded)?;
        // The claim is signed by the side that waited (in a solo game, the
        // robot), with the robot's timestamp.
        let claimant = loaded
            .replay
            .parties()
            .iter()
            .map(|p| p.key)
            .find(|k| *k != silent)
            .ok_or("nobody to claim")?;
        let signer = keys.signer(&claimant).ok_or("no key to claim with")?;
        let mut replay = SignedReplay::clone(&loaded.replay);
        let reason = format!("no move in {} days", self.settings.forfeit);
        let event = table::next_event(
            &mut replay,
            signer.key,
            EventBody::ForfeitClaim {
                against: silent,
                reason: Text::new(&reason).map_err(|e| e.to_string())?,
                robot_time: Some(self.now),
            },
        )
        .map_err(|e| e.to_string())?;
        loaded.replay = self.commit(work, &mut loaded, &replay, &[event])?;
        loaded.meta.stage = Stage::Over;
        self.put_meta(work, &loaded.meta);
        let text = format!(
            "{id}: {silent_address} did not move in {} days; the robot claims the game against them (a signed forfeit claim with its timestamp is in the record).\n",
            self.settings.forfeit
        );
        self.mail_to(work, key, &loaded.meta, loaded.meta.seats.clone(), text);
        work.log
            .push(format!("{id}: forfeit claimed against {silent_address}"));
        Ok(())
    }

    fn mail_to(&self, work: &mut Work, key: &str, meta: &GameMeta, to: Vec<String>, body: String) {
        let n = work.mails.len();
        work.mails.push(OutMail {
            to,
            subject: format!(
                "[Yam] {} {}: {}",
                meta.game,
                meta.id,
                meta.seats.join(" vs ")
            ),
            body,
            message_id: self.message_id(key, n, Some(&meta.id)),
            in_reply_to: meta.thread.last().cloned(),
            references: meta.thread.clone(),
            game: Some(meta.id.clone()),
            attachment: self.attachment(work, &meta.id),
        });
    }
}

fn witnessed_only(id: &str) -> String {
    format!(
        "{id} is played with the players' own Yam, which sign every event: the robot only witnesses it (`show`, `list`); play with `yam move`, `yam accept` and the rest on your desk"
    )
}

fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 128
        && !id.starts_with('.')
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

/// The game a reply is about, from the robot's Message-IDs it cites.
fn thread_game(incoming: &Incoming) -> Option<String> {
    incoming.replies_to.iter().find_map(|id| {
        let local = id.split('@').next()?;
        let mut parts = local.splitn(4, '.');
        (parts.next()? == "yam-robot").then_some(())?;
        let _key = parts.next()?;
        let _n = parts.next()?;
        let game = parts.next()?;
        (game != "x" && valid_id(game)).then(|| game.to_owned())
    })
}

/// The text of a mail's first text part; an HTML-only mail's as its
/// reader sees it, what it quotes marked quoted ([`crate::mail::html`]).
fn body_text(raw: &[u8]) -> String {
    let Some(message) = mail_parser::MessageParser::default().parse(raw) else {
        return String::new();
    };
    let html_only = message
        .text_body
        .first()
        .and_then(|&i| message.part(i))
        .is_some_and(|part| matches!(part.body, mail_parser::PartType::Html(_)));
    if html_only && let Some(html) = message.body_html(0) {
        return crate::mail::html::html_lines(&html);
    }
    let text = message
        .body_text(0)
        .map(|t| t.into_owned())
        .unwrap_or_default();
    // A flowed text's soft breaks joined: a long `move` line a mail
    // program wrapped is one command again (`mail::flowed`).
    use mail_parser::MimeHeaders;
    let flowed = message
        .text_body
        .first()
        .and_then(|&i| message.part(i))
        .and_then(|part| part.content_type())
        .and_then(crate::mail::flowed::flowed);
    match flowed {
        Some(delsp) => crate::mail::flowed::unflow(&text, delsp),
        None => text,
    }
}

fn describe(c: &Command) -> String {
    match c {
        Command::Help => "help".into(),
        Command::List => "list".into(),
        Command::Challenge {
            game,
            ruleset,
            invited,
            second,
        } => format!(
            "challenge {game}{}{}{}",
            ruleset
                .as_deref()
                .map(|r| format!(" {r}"))
                .unwrap_or_default(),
            invited
                .as_deref()
                .map(|r| format!(" {r}"))
                .unwrap_or_default(),
            if *second { " second" } else { "" }
        ),
        Command::Join(id) => format!("join {id}"),
        Command::Move { moves, ply, .. } => format!(
            "move {}{}",
            moves.join(" "),
            ply.map(|p| format!(" #{p}")).unwrap_or_default()
        ),
        Command::Show(_) => "show".into(),
        Command::Resign(_) => "resign".into(),
        Command::Offer(Offer::Draw, _) => "offer draw".into(),
        Command::Offer(Offer::Takeback, _) => "offer takeback".into(),
        Command::Answer(kind, accepted, _) => format!(
            "{} {}",
            if *accepted { "accept" } else { "decline" },
            if *kind == Offer::Draw {
                "draw"
            } else {
                "takeback"
            }
        ),
    }
}

fn refusal(e: TableError) -> String {
    match e {
        TableError::Rules(r) => format!("{} (position: {})", r.reason, r.position),
        other => other.to_string(),
    }
}

fn to_move_text(loaded: &Loaded) -> String {
    let replay = &loaded.replay;
    match (replay.ending(), replay.to_move_key()) {
        (Some(end), _) => format!("Game over: {} ({}).", end.result, end.reason),
        (None, Some(key)) => {
            let seat = replay.seat_of(&key).unwrap_or(0);
            let role = replay.game().seats().get(seat).copied().unwrap_or("?");
            let who = loaded.meta.seats.get(seat).map_or("?", String::as_str);
            format!("{role} ({who}) to move.")
        }
        (None, None) => "Nobody can move.".into(),
    }
}

/// The placement format of Castle Siege's secret setups, with a worked
/// example for each side.
pub(super) const SIEGE_SETUP_FORMAT: &str = "\
A setup is one move: the side, a colon, then the unit letters square by square, groups
separated by `/` (C cannon, K knight, A archer, O boiling-oil cauldron, S sapper,
R battering ram, T siege tower):
  Defender: 16 letters over the castle, c6-f6 / c5-f5 / c4-f4 / c3-f3,
            4 each of C K A O, for instance  Defender:CKAO/OACK/KCOA/AOKC
  Attacker: 28 letters over the edge, rank 8 a-h / then a and h of ranks 7, 6, 5, 4, 3
            and 2 (six pairs) / rank 1 a-h; 4 C, 8 K, 4 A, 4 S, 4 R, 4 T,
            for instance  Attacker:KKRTTRKK/AA/SS/CC/CC/SS/AA/KKRTTRKK
The robot seals it for you: your opponent sees only `Defender:sealed` (or
`Attacker:sealed`) until both setups are in, then both are revealed at once.
";

/// What to send in a Castle Siege game: during the setups, the placement
/// format and a placement to copy; in play, a whole turn in one mail
/// (`Move ... Breach ... Attack ... End`), checked before it is suggested,
/// or under the faithful turn (CS-P4) the next single order.
///
/// `reader` is the address the text goes to: a placement to copy is given
/// only to the player who is to seal it, drawn from the operating
/// system's randomness. Drawn from the count of the record's events and
/// put in the status every player was mailed, it told the Attacker the
/// very setup the robot offered the Defender, and anyone could compute it
/// (`robot_local::the_setup_the_robot_suggests_is_neither_mailed_to_the_opponent_nor_computable`).
fn siege_hint(loaded: &Loaded, reader: Option<&str>) -> Option<String> {
    use yam_referee::castle_siege::game_replay::SetupStage;
    use yam_referee::castle_siege::{Policy, choose_declaration};
    let replay = &loaded.replay;
    let siege = crate::game::autoplay::siege(replay)?;
    let to_move = replay.to_move_key()?;
    let seat = replay.seat_of(&to_move)?;
    let side = yam_referee::castle_siege::game_replay::side_of(seat);
    let id = &loaded.meta.id;
    let seed = replay.events().len() as u64;
    match siege.setup_stage() {
        Some(SetupStage::Sealing) => {
            let sealer = loaded.meta.seats.get(seat);
            let for_the_sealer = reader
                .zip(sealer)
                .is_some_and(|(reader, sealer)| reader.eq_ignore_ascii_case(sealer));
            match for_the_sealer
                .then(|| secret_placement(side).ok())
                .flatten()
            {
                Some(placement) => Some(format!(
                    "{SIEGE_SETUP_FORMAT}Reply (a legal placement drawn at random for you alone; rearrange the letters as you like):\n  move {id} {placement} #{}\n",
                    replay.plies()
                )),
                None => Some(SIEGE_SETUP_FORMAT.to_owned()),
            }
        }
        // Revealed by the robot itself, as soon as both are sealed.
        Some(SetupStage::Revealing) => None,
        // CS-P4: one order per mail, the next one the engine would choose.
        None if siege.rules().turn == yam_referee::castle_siege::TurnMode::Faithful => {
            let state = siege.state()?;
            let next = choose_declaration(state, Policy::Eager, seed).texts();
            Some(format!(
                "The turn as the rules play it (CS-P4): one order per mail, each chosen once the dice before it\n\
                 are known. `Move` alone first (the allowance roll), then each step on its own, then breaches and\n\
                 attacks one at a time (`Breach Rb6#c6`, `Attack Ab5xKc5`), then `End`. Legal orders now: {}\n\
                 Reply (the next order, chosen by the robot; change it as you like):\n  move {id} {} #{}\n",
                legal_orders_text(replay),
                next.join(" "),
                replay.plies()
            ))
        }
        None => {
            let state = siege.state()?;
            // A whole turn, ending with `End`: the engine's declarations
            // cover one phase at times, so the first whole one is taken.
            let turn = (0..64)
                .map(|i| choose_declaration(state, Policy::Eager, seed.wrapping_add(i)).texts())
                .find(|t| t.last().is_some_and(|o| o == "End"))
                .unwrap_or_else(|| {
                    let mut t = choose_declaration(state, Policy::Eager, seed).texts();
                    if t.last().is_none_or(|o| o != "End") {
                        t.extend(["Attack".to_owned(), "End".to_owned()]);
                    }
                    t
                });
            Some(format!(
                "A whole turn goes in one mail, declared before its dice are drawn: `Move` and your steps in\n\
                 the order to try them (the allowance die decides how many are made), `Breach` and breaches,\n\
                 `Attack` and attacks, then `End`. Legal orders now: {}\n\
                 Reply (a legal turn, chosen by the robot; change it as you like):\n  move {id} {} #{}\n",
                legal_orders_text(replay),
                turn.join(" "),
                replay.plies()
            ))
        }
    }
}

fn legal_orders_text(replay: &SignedReplay) -> String {
    let moves = replay.game().legal_moves();
    let shown: Vec<&str> = moves.iter().take(HINTS).map(String::as_str).collect();
    format!(
        "{}{}",
        shown.join(" "),
        if moves.len() > HINTS { " ..." } else { "" }
    )
}

/// The one player a mail about `from`'s step goes to (`notify_others`):
/// the other seat of a two-player game, for what is that reader's alone.
fn only_other<'m>(meta: &'m GameMeta, from: &str) -> Option<&'m str> {
    let mut others = meta.seats.iter().filter(|s| *s != from);
    match (others.next(), others.next()) {
        (Some(one), None) => Some(one.as_str()),
        _ => None,
    }
}

/// A party by the name players know: its role and its address (never a
/// bare key fingerprint); the robot by its role.
fn seat_name(replay: &SignedReplay, seats: &[String], key: &PublicKey) -> String {
    match replay.seat_of(key) {
        Some(seat) => {
            let role = replay.game().seats().get(seat).copied().unwrap_or("?");
            match seats.get(seat) {
                Some(address) => format!("{role} ({address})"),
                None => role.to_owned(),
            }
        }
        None => "the robot".to_owned(),
    }
}

/// The position as text: a diagram or a tableau.
fn board(replay: &SignedReplay, ruleset: &LoadedRuleset) -> String {
    use yam_referee::khan;
    if let Some(cards) = crate::game::autoplay::cards(replay)
        && let Some(state) = cards.state()
    {
        return yam_referee::genghis_khan::tableau::tableau(state);
    }
    if let Some(siege) = crate::game::autoplay::siege(replay)
        && let Some(state) = siege.state()
    {
        return yam_referee::castle_siege::diagram::diagram(state);
    }
    if ruleset.game == GameKind::Khan
        && let Ok(rules) = khan::Ruleset::from_yaml(&ruleset.text)
        && let Ok(pos) =
            khan::Position::from_yam(&replay.game().position(), *rules.start_position().rules())
    {
        return khan::diagram(&pos);
    }
    format!("{}\n", replay.game().position())
}

/// What the events did, one line each.
fn events_text(after: &SignedReplay, seats: &[String], events: &[SignedEvent]) -> String {
    use yam_referee::fair_play::turn::Evidence;
    let mut out = String::new();
    for event in events {
        let e = &event.event;
        // Players by their address; the robot by its role.
        let who = after
            .seat_of(&e.author)
            .and_then(|seat| seats.get(seat).cloned())
            .unwrap_or_else(|| "the robot".to_owned());
        let line = match &e.body {
            EventBody::Turn(turn) if !turn.moves.is_empty() => {
                let moves: Vec<&str> = turn.moves.iter().map(|m| m.as_str()).collect();
                let mut line = format!("{who} played {}", moves.join(" "));
                for evidence in turn.evidence.iter() {
                    if let Evidence::Outcomes { roll, results } = evidence {
                        let values: Vec<String> = results
                            .iter()
                            .map(yam_referee::signed::text::chance_item)
                            .collect();
                        line.push_str(&format!(" (roll {roll}: {})", values.join(", ")));
                    }
                }
                line
            }
            EventBody::Turn(turn) => {
                // A roll request: say which seed went in, so the player can
                // check it is the one they sent.
                let seed = turn.evidence.iter().find_map(|ev| match ev {
                    Evidence::RollRequest(r) => {
                        Some(r.request.declaration.seed.as_str().to_owned())
                    }
                    _ => None,
                });
                let outcome = turn.evidence.iter().find_map(|ev| match ev {
                    Evidence::Outcomes { roll, results } => {
                        Some(format!("roll {roll}: {} values drawn", results.len()))
                    }
                    _ => None,
                });
                match (seed, outcome) {
                    (Some(seed), _) => format!("{who} requests a roll with the seed {seed:?}"),
                    // The rules' own draw (the Foe layout): no moves.
                    (None, Some(outcome)) => format!("{who} lays out the game ({outcome})"),
                    (None, None) => continue,
                }
            }
            EventBody::Resignation => format!("{who} resigns"),
            EventBody::DrawOffer => format!("{who} offers a draw"),
            EventBody::DrawAnswer { accepted, .. } => {
                format!(
                    "{who} {} the draw",
                    if *accepted { "accepts" } else { "declines" }
                )
            }
            EventBody::TakebackOffer { .. } => format!("{who} asks to take back their last move"),
            EventBody::TakebackAnswer { accepted, .. } => format!(
                "{who} {} the take-back",
                if *accepted { "accepts" } else { "declines" }
            ),
            EventBody::ForfeitClaim { reason, .. } => {
                format!("{who} claims a forfeit: {}", reason.as_str())
            }
            _ => continue,
        };
        out.push_str(&line);
        out.push_str(".\n");
    }
    out
}

/// Asks to take back the offerer's last move on the board (not one a
/// take-back undid): back to the position before it. Only in games
/// without chance, where going back undoes no roll.
fn offer_takeback(replay: &mut SignedReplay, who: &Signer<'_>) -> Result<Vec<SignedEvent>, String> {
    if replay.roll_book().is_some_and(|b| b.next_index() > 0) {
        return Err("a take-back cannot undo a roll; expected `offer draw` or `resign`".into());
    }
    let back_to = replay
        .before_last_standing_move(&who.public_key())
        .ok_or("you have no move to take back")?;
    let event = table::next_event(replay, who.key, EventBody::TakebackOffer { back_to })
        .map_err(|e| e.to_string())?;
    Ok(vec![event])
}

#[cfg(test)]
mod read_games_tests {
    use super::*;
    use yam_referee::replay::{Builtin, RulesCatalog};

    fn game(id: &str, text: &str) -> ReadGame {
        let ruleset = Builtin.load_ruleset(GameKind::Khan, "basic").unwrap();
        ReadGame {
            id: id.to_owned(),
            ruleset: ruleset.hash(),
            text: RecordText {
                text: Rc::new(text.to_owned()),
                whole: None,
                bounds: None,
                digest: None,
            },
            replay: Rc::new(SignedReplay::start(&Builtin, &ruleset).unwrap()),
        }
    }

    /// A game found again is shared with the command that loads it, not
    /// copied; forgotten, the command holds it alone, so that changing it
    /// (`Rc::make_mut` in `Robot::commit`) copies nothing.
    #[test]
    fn a_game_read_before_is_shared_and_forgotten_before_it_changes() {
        let mut kept = ReadGames::default();
        let read = game("g", "one");
        let hash = read.ruleset;
        let replay = Rc::clone(&read.replay);
        kept.keep(read);
        let (text, found) = kept.get("g", "one", &hash).unwrap();
        assert!(Rc::ptr_eq(&found, &replay), "shared, not copied");
        drop((replay, text));
        assert_eq!(Rc::strong_count(&found), 2, "the command and the cache");
        kept.forget("g");
        assert_eq!(Rc::strong_count(&found), 1, "the command alone");
        let mut found = found;
        let before = Rc::as_ptr(&found);
        Rc::make_mut(&mut found);
        assert_eq!(Rc::as_ptr(&found), before, "changed where it is");
        assert!(kept.get("g", "one", &hash).is_none());
        assert_eq!(kept.bytes, 0);
        kept.forget("g");
        assert_eq!(kept.bytes, 0, "forgetting a game not kept changes nothing");
    }

    /// A robot on a store of its own, in a temporary folder.
    fn robot_in_a_new_store() -> (tempfile::TempDir, Robot) {
        let dir = tempfile::tempdir().unwrap();
        let robot = Robot::new(
            Store::open(dir.path()).unwrap(),
            "robot@yam.test",
            Settings::default(),
            0,
        )
        .unwrap();
        (dir, robot)
    }

    /// A decision reads each store file once (what it wrote itself
    /// first); the next decision, after `Robot::touched`, reads the store
    /// again, as the journal may have written it in between.
    #[test]
    fn a_decision_reads_a_file_once_and_the_next_reads_it_again() {
        let (dir, robot) = robot_in_a_new_store();
        let rel = "robot/players/someone.yaml";
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "one").unwrap();
        let work = Work::default();
        robot.touched();
        assert_eq!(robot.read(&work, rel).as_deref(), Some("one"));
        assert_eq!(robot.read(&work, "robot/players/absent.yaml"), None);
        std::fs::write(&path, "two").unwrap();
        std::fs::write(dir.path().join("robot/players/absent.yaml"), "now").unwrap();
        assert_eq!(robot.read(&work, rel).as_deref(), Some("one"), "read once");
        assert_eq!(robot.read(&work, "robot/players/absent.yaml"), None);
        let mut writing = Work::default();
        writing.writes.insert(rel.to_owned(), "three".to_owned());
        assert_eq!(
            robot.read(&writing, rel).as_deref(),
            Some("three"),
            "what the decision writes comes first"
        );
        let touched = robot.touched();
        assert!(touched.contains(rel) && touched.contains("robot/players/absent.yaml"));
        assert_eq!(robot.read(&work, rel).as_deref(), Some("two"), "read anew");
        assert_eq!(
            robot.read(&work, "robot/players/absent.yaml").as_deref(),
            Some("now")
        );
    }

    /// A player's file is parsed once a decision, and parsed anew when the
    /// decision has written it (another text).
    #[test]
    fn a_parsed_file_is_the_text_it_was_parsed_from() {
        let (dir, robot) = robot_in_a_new_store();
        let player = Player {
            address: "ann@example.org".into(),
            token_sha256: "00".into(),
            identity: "p-ann".into(),
            games: vec!["g1".into()],
            registered: 1,
            unheard: false,
        };
        let rel = player_path(&player.address);
        let path = dir.path().join(&rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, serde_yaml_ng::to_string(&player).unwrap()).unwrap();
        let work = Work::default();
        robot.touched();
        assert_eq!(robot.player(&work, &player.address), Some(player.clone()));
        assert_eq!(robot.player(&work, &player.address), Some(player.clone()));
        let mut writing = Work::default();
        let mut changed = player.clone();
        changed.games.push("g2".into());
        robot.put_player(&mut writing, &changed);
        assert_eq!(robot.player(&writing, &player.address), Some(changed));
        assert_eq!(robot.player(&work, &player.address), Some(player.clone()));
        writing
            .writes
            .insert(rel.clone(), "not: [a player".to_owned());
        assert_eq!(robot.player(&writing, &player.address), None);
    }

    /// A game is found again only from exactly the text and ruleset it was
    /// read from, and no more games than the bound are kept, the least
    /// recently used going first.
    #[test]
    fn a_game_read_before_is_the_same_text_or_nothing() {
        let mut kept = ReadGames::default();
        let hash = game("g", "").ruleset;
        kept.keep(game("g", "one"));
        assert!(kept.get("g", "one", &hash).is_some());
        assert!(kept.get("g", "one ", &hash).is_none(), "another text");
        assert!(kept.get("h", "one", &hash).is_none(), "another game");
        let other = yam_referee::fair_play::hash::Hash32::of(b"another ruleset");
        assert!(kept.get("g", "one", &other).is_none(), "another ruleset");
        // Written anew: only the new text is the game.
        kept.keep(game("g", "two"));
        assert!(kept.get("g", "one", &hash).is_none());
        assert!(kept.get("g", "two", &hash).is_some());
        assert_eq!(kept.games.len(), 1);
        for n in 0..ReadGames::GAMES + 5 {
            kept.keep(game(&format!("x{n}"), "t"));
            // The first one, used again, stays.
            assert!(kept.get("g", "two", &hash).is_some());
        }
        assert_eq!(kept.games.len(), ReadGames::GAMES);
        assert!(
            kept.get("x0", "t", &hash).is_none(),
            "the least recently used went"
        );
        assert_eq!(
            kept.bytes,
            kept.games.iter().map(|g| g.text.text.len()).sum::<usize>()
        );
        // The bytes bound: one game larger than it is still kept alone.
        kept.keep(game("big", &"x".repeat(ReadGames::BYTES + 1)));
        assert_eq!(kept.games.len(), 1);
        assert!(
            kept.get("big", &"x".repeat(ReadGames::BYTES + 1), &hash)
                .is_some()
        );
    }
}
