//! The robot's command language: plain lines in a mail's subject or body.
//!
//! A line is a command when its first word is a known verb (any case);
//! every other line is ignored, so a reply's quoted text (`> ...`), a
//! subject's `Re: [Yam] ...` and a signature never read as commands.
//! Reading stops at a signature separator (`-- `), and quoted lines are
//! skipped (a player may write below a quote), so an answer quoted back is
//! never obeyed twice. Reading also stops where a reply's original message
//! starts unquoted below it, as Outlook writes it (`-----Original
//! Message-----`, a line of underscores, or a header block `From: ...`
//! `Sent: ...`, in the mail program's language too: [`original_starts`]):
//! the original is the robot's own mail, whose lines are not the sender's.
//! A flowed text (RFC 3676) comes here with its soft breaks joined. Besides commands, a mail may carry `token: XXXX` (the
//! sender's token, see `auth`; the first such line counts, so a template
//! line `token: YOUR-TOKEN` of a quoted invitation never overrides the
//! player's) and `seed: free text` (entering every roll of the mail).

/// The most commands one mail may carry: a mail of thousands of lines is
/// answered with an error, not with thousands of moves.
pub const MAX_COMMANDS: usize = 20;

/// The longest free-text seed kept (the rest is cut).
pub const MAX_SEED: usize = 200;

/// How many characters of a long input are quoted back.
pub const QUOTED: usize = 80;

/// A word of an answer longer than this is the echo of a long input, quoted
/// in part ([`shorten_words`]).
pub const LONG_WORD: usize = 120;

/// `text`, or when longer than `max` characters its first [`QUOTED`]
/// characters and its size: a long input is never echoed whole.
pub fn quote_part(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let head: String = text.chars().take(QUOTED).collect();
    format!("{head}… ({} bytes)", text.len())
}

/// `text` with every word (a run without white space) longer than
/// [`LONG_WORD`] characters quoted in part: an error that names a 100 KB
/// move quotes it, not echoes it.
pub fn shorten_words(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(1 << 16));
    let mut word = String::new();
    for c in text.chars() {
        if c.is_whitespace() {
            out.push_str(&quote_part(&word, LONG_WORD));
            word.clear();
            out.push(c);
        } else {
            word.push(c);
        }
    }
    out.push_str(&quote_part(&word, LONG_WORD));
    out
}

/// One command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `help`: the command language.
    Help,
    /// `challenge GAME [RULESET] [ADDRESS] [second]` or `open ...`: a new
    /// game; solo games start at once, two-player games wait for `join`.
    Challenge {
        /// The game's name as written.
        game: String,
        /// The ruleset, if named.
        ruleset: Option<String>,
        /// The invited address (none: anyone may join).
        invited: Option<String>,
        /// Whether the challenger takes the second seat.
        second: bool,
    },
    /// `join ID` or `accept ID`.
    Join(String),
    /// `move [ID] TOKEN... [#PLY]`.
    Move {
        /// The game, if named.
        game: Option<String>,
        /// The moves of the turn.
        moves: Vec<String>,
        /// The ply the sender saw (a stale mail is refused).
        ply: Option<u32>,
    },
    /// `show [ID]`.
    Show(Option<String>),
    /// `list`: the sender's games.
    List,
    /// `resign [ID]`.
    Resign(Option<String>),
    /// `offer draw|takeback [ID]`.
    Offer(Offer, Option<String>),
    /// `accept|decline draw|takeback [ID]`.
    Answer(Offer, bool, Option<String>),
}

/// What is offered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offer {
    /// A draw.
    Draw,
    /// Taking back the offerer's last move.
    Takeback,
}

/// A line that looks like a command but is not one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadLine {
    /// The line.
    pub line: String,
    /// What was expected.
    pub expected: String,
}

/// What a mail says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Parsed {
    /// Its commands, in order.
    pub commands: Vec<Command>,
    /// The token given, if any.
    pub token: Option<String>,
    /// The free-text seed, if any.
    pub seed: Option<String>,
    /// Lines refused.
    pub errors: Vec<BadLine>,
    /// Whether more than [`MAX_COMMANDS`] commands were given (the rest
    /// were dropped).
    pub truncated: bool,
}

const VERBS: &[&str] = &[
    "help",
    "challenge",
    "open",
    "new",
    "join",
    "accept",
    "decline",
    "move",
    "play",
    "show",
    "board",
    "list",
    "games",
    "resign",
    "offer",
];

/// Reads the subject, then the body.
pub fn parse(subject: &str, body: &str) -> Parsed {
    let mut parsed = Parsed::default();
    let line_of = |line: &str, parsed: &mut Parsed| {
        let line = line.trim();
        if line.is_empty() {
            return;
        }
        let (head, rest) = split_word(line);
        let head_lower = head.to_ascii_lowercase();
        let key = head_lower.trim_end_matches(':');
        if key == "token" {
            if parsed.token.is_none()
                && let Some(token) = rest.split_whitespace().next()
            {
                parsed.token = Some(token.to_owned());
            }
            return;
        }
        if key == "seed" && head_lower.ends_with(':') {
            let seed: String = rest.trim().chars().take(MAX_SEED).collect();
            if !seed.is_empty() {
                parsed.seed = Some(seed);
            }
            return;
        }
        if !VERBS.contains(&key) {
            return;
        }
        if parsed.commands.len() >= MAX_COMMANDS {
            parsed.truncated = true;
            return;
        }
        match command(key, rest) {
            Ok(c) => parsed.commands.push(c),
            Err(expected) => parsed.errors.push(BadLine {
                line: quote_part(line, 200),
                expected,
            }),
        }
    };
    // The subject is one line; an answer's subject (`Re: [Yam] ...`) starts
    // with no verb and so is passed over.
    // (The subject is the first line: a move in it carries on into the
    // body's first lines as the body's own would.)
    let mut lines = vec![subject];
    lines.extend(unquoted(body));
    for line in with_wrapped_moves_joined(&lines) {
        line_of(&line, &mut parsed);
    }
    parsed
}

/// `lines` with each `move` (or `play`) line joined to the lines after it
/// that carry on its orders: a mail program that wraps plain text without
/// marking it (Outlook at 76 columns) cut a whole Castle Siege turn of 160
/// characters, copied from the robot's answer, into three lines, and the
/// first was played as a turn of its own, the rest passed over. A line
/// carries on a move when every word of it looks like an order, a phase
/// or the ply (`Ad5-c6`, `Ac4xAa5`, `Rb6#c6`, `Attack`, `End`, `#4`) and
/// its first word is no verb; prose (`thanks, Ad5-c6 was good`), a
/// command, a `token:` line or an empty line ends it. (A flowed text's
/// soft breaks are joined before, `mail::flowed`.)
fn with_wrapped_moves_joined(lines: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    let mut in_move = false;
    for line in lines {
        let trimmed = line.trim();
        let (head, _) = split_word(trimmed);
        let verb = head.to_ascii_lowercase();
        let verb = verb.trim_end_matches(':');
        if in_move
            && !trimmed.is_empty()
            && !VERBS.contains(&verb)
            && carries_orders(trimmed)
            && let Some(last) = out.last_mut()
        {
            last.push(' ');
            last.push_str(trimmed);
            continue;
        }
        in_move = matches!(verb, "move" | "play");
        out.push((*line).to_owned());
    }
    out
}

/// Whether every word of `line` looks like an order, a phase word or a
/// ply (`#N`): a short word of letters, digits and the marks orders use,
/// with a digit in it, or `Move`, `Breach`, `Attack`, `End`, `skip`.
fn carries_orders(line: &str) -> bool {
    line.split_whitespace().all(|word| {
        let phase = ["move", "breach", "attack", "end", "skip"]
            .contains(&word.to_ascii_lowercase().as_str());
        let ply = word
            .strip_prefix('#')
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        let order = word.len() <= 24
            && word.bytes().any(|b| b.is_ascii_digit())
            && word
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-x#@:/=*+.".contains(&b));
        phase || ply || order
    })
}

/// The lines the sender wrote: up to a signature separator (`-- `) or the
/// start of an original message below a reply, without quoted lines.
pub fn unquoted(body: &str) -> Vec<&str> {
    let lines: Vec<&str> = body.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if *line == "-- " || original_starts(&lines[i..]) {
            break;
        }
        if line.trim_start().starts_with('>') {
            continue;
        }
        out.push(*line);
    }
    out
}

/// Whether an original message, unquoted, starts at `lines[0]`, in the
/// mail program's own language: a separator line of dashes or underscores
/// around words (Outlook's `-----Original Message-----`,
/// `-----Ursprüngliche Nachricht-----`, `-----Message d'origine-----`,
/// Thunderbird's `-------- Forwarded Message --------`), a line of
/// underscores alone, or a header block: a `From:` line (`Von:`, `De :`,
/// `Da:`, ...) with a `Sent:`, `Date:`, `To:` or `Subject:` line (in any of
/// those languages) in the next four. Only English was known at first: a
/// German Outlook's reply to a `show` carried the robot's own Castle Siege
/// placement below its separator, and the robot sealed it as the player's
/// (`a_robot_mail_below_a_german_outlook_reply_is_not_obeyed`).
fn original_starts(lines: &[&str]) -> bool {
    let Some(first) = lines.first().map(|l| l.trim()) else {
        return false;
    };
    let fence = |c: char| first.starts_with(&*c.to_string().repeat(3));
    let closing = |c: char| first.ends_with(&*c.to_string().repeat(3));
    // An armour line is no separator: an inline-signed mail's
    // `-----BEGIN PGP SIGNED MESSAGE-----` holds the player's own lines
    // (`an_inline_signed_mail_is_read_not_taken_for_an_original`).
    let armour = ["-----BEGIN ", "-----END "]
        .iter()
        .any(|a| first.to_ascii_uppercase().starts_with(a));
    if ((fence('-') && closing('-')) || (fence('_') && closing('_')))
        && first.chars().any(char::is_alphabetic)
        && !armour
    {
        return true;
    }
    let lower = first.to_lowercase();
    if (fence('-') || fence('_'))
        && (lower.contains("original message") || lower.contains("forwarded message"))
    {
        return true;
    }
    if first.chars().count() >= 10 && first.chars().all(|c| c == '_') {
        return true;
    }
    if header_label(first).is_some_and(|l| FROM_LABELS.contains(&l.as_str())) {
        return lines
            .iter()
            .skip(1)
            .take(4)
            .any(|l| header_label(l.trim()).is_some_and(|l| OTHER_LABELS.contains(&l.as_str())));
    }
    false
}

/// `From` in the header blocks mail programs write above a reply's
/// original, in the languages they are most often set to.
const FROM_LABELS: &[&str] = &[
    "from",
    "von",
    "de",
    "da",
    "van",
    "från",
    "fra",
    "frå",
    "od",
    "от",
    "lähettäjä",
    "feladó",
    "kimden",
    "差出人",
    "发件人",
    "寄件者",
    "보낸 사람",
];

/// `Sent`, `Date`, `To` and `Subject` in those header blocks.
const OTHER_LABELS: &[&str] = &[
    // Turkish, Hungarian, Czech and Slovak (their `From` labels are in
    // FROM_LABELS: without these, theirs started no block).
    "gönderildi",
    "gönderilme tarihi",
    "kime",
    "konu",
    "tarih",
    "elküldve",
    "címzett",
    "tárgy",
    "dátum",
    "odesláno",
    "komu",
    "předmět",
    "odoslané",
    "predmet",
    "sent",
    "date",
    "to",
    "subject",
    "gesendet",
    "datum",
    "an",
    "betreff",
    "envoyé",
    "à",
    "objet",
    "inviato",
    "data",
    "a",
    "oggetto",
    "enviado",
    "enviada",
    "fecha",
    "para",
    "asunto",
    "assunto",
    "verzonden",
    "aan",
    "onderwerp",
    "skickat",
    "till",
    "ämne",
    "sendt",
    "til",
    "emne",
    "wysłano",
    "do",
    "temat",
    "отправлено",
    "кому",
    "тема",
    "lähetetty",
    "vastaanottaja",
    "aihe",
    "送信日時",
    "宛先",
    "件名",
    "发送时间",
    "收件人",
    "主题",
    "日期",
    "寄件日期",
    "收件者",
    "主旨",
    "보낸 날짜",
    "받는 사람",
    "제목",
];

/// The label of a header-like line (`Von: Ann`, `De : Ann`, `件名: x`),
/// lower case; `None` when the line is no `Label: value`.
fn header_label(line: &str) -> Option<String> {
    let (label, _) = line.split_once([':', '：'])?;
    let label = label.trim();
    (!label.is_empty() && label.chars().count() <= 24 && !label.contains(['<', '@', '>']))
        .then(|| label.to_lowercase())
}

fn split_word(line: &str) -> (&str, &str) {
    match line.find(char::is_whitespace) {
        Some(i) => (&line[..i], line[i..].trim_start()),
        None => (line, ""),
    }
}

fn offer_kind(word: &str) -> Option<Offer> {
    match word.to_ascii_lowercase().as_str() {
        "draw" => Some(Offer::Draw),
        "takeback" | "take-back" | "undo" => Some(Offer::Takeback),
        _ => None,
    }
}

/// An optional game id: at most one word.
fn optional_id(rest: &str, expected: &str) -> Result<Option<String>, String> {
    let words: Vec<&str> = rest.split_whitespace().collect();
    match words.as_slice() {
        [] => Ok(None),
        [id] => Ok(Some((*id).to_owned())),
        _ => Err(expected.to_owned()),
    }
}

/// Words split at white space outside double quotes: Genghis Khan's moves
/// name cards in quotes (`capture:M7/"Army of Toghril"=8d`).
fn words(rest: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = None;
    let mut quoted = false;
    for (i, c) in rest.char_indices() {
        if c == '"' {
            quoted = !quoted;
        }
        match (c.is_whitespace() && !quoted, start) {
            (true, Some(s)) => {
                out.push(&rest[s..i]);
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push(&rest[s..]);
    }
    out
}

fn command(verb: &str, rest: &str) -> Result<Command, String> {
    let words: Vec<&str> = words(rest);
    match verb {
        "help" => Ok(Command::Help),
        "challenge" | "open" | "new" => {
            let expected = "challenge GAME [RULESET] [ADDRESS] [second], for instance `challenge khan rescue-khan bob@example.org` or `challenge genghis-khan`";
            let mut game = None;
            let mut ruleset = None;
            let mut invited = None;
            let mut second = false;
            for word in words {
                let lower = word.to_ascii_lowercase();
                if word.contains('@') {
                    // No mail address is longer (RFC 5321): a longer word
                    // was cut to the sender form's 320 characters, its `@`
                    // sometimes with the rest (found by the fuzz target).
                    if invited.is_some() || word.chars().count() > 254 {
                        return Err(expected.into());
                    }
                    // Lower-cased whole, as a sender's address is
                    // (`extract::sender_address`): in ASCII only, an
                    // invited `Ümit@...` never matched the `ümit@...` her
                    // join came from, and she could never take her seat.
                    invited = Some(crate::mail::extract::sender_address(
                        word.trim_matches(['<', '>']),
                    ));
                } else if lower == "second" || lower == "black" {
                    second = true;
                } else if lower == "first" || lower == "white" {
                    second = false;
                } else if game.is_none() {
                    game = Some(lower);
                } else if ruleset.is_none() {
                    ruleset = Some(lower);
                } else {
                    return Err(expected.into());
                }
            }
            let game = game.ok_or_else(|| expected.to_owned())?;
            // `castle siege` and `genghis khan` in two words.
            let (game, ruleset) = match (game.as_str(), ruleset.as_deref()) {
                ("castle", Some("siege")) | ("genghis", Some("khan")) => {
                    (format!("{game}-{}", ruleset.unwrap_or_default()), None)
                }
                _ => (game, ruleset),
            };
            Ok(Command::Challenge {
                game,
                ruleset,
                invited,
                second,
            })
        }
        "join" => match words.as_slice() {
            [id] => Ok(Command::Join((*id).to_owned())),
            _ => Err("join GAME-ID".into()),
        },
        "accept" | "decline" => {
            let accepted = verb == "accept";
            match words.as_slice() {
                [what, rest @ ..] if offer_kind(what).is_some() => {
                    let kind = offer_kind(what).unwrap_or(Offer::Draw);
                    let id =
                        optional_id(&rest.join(" "), "accept|decline draw|takeback [GAME-ID]")?;
                    Ok(Command::Answer(kind, accepted, id))
                }
                [id] if accepted => Ok(Command::Join((*id).to_owned())),
                _ => Err(if accepted {
                    "accept GAME-ID (a challenge), or accept draw|takeback [GAME-ID]".into()
                } else {
                    "decline draw|takeback [GAME-ID]".into()
                }),
            }
        }
        "offer" => match words.as_slice() {
            [what, rest @ ..] if offer_kind(what).is_some() => {
                let kind = offer_kind(what).unwrap_or(Offer::Draw);
                let id = optional_id(&rest.join(" "), "offer draw|takeback [GAME-ID]")?;
                Ok(Command::Offer(kind, id))
            }
            _ => Err("offer draw|takeback [GAME-ID]".into()),
        },
        "move" | "play" => {
            let mut moves = Vec::new();
            let mut ply = None;
            for word in words {
                if let Some(n) = word.strip_prefix('#') {
                    ply = Some(n.parse::<u32>().map_err(|_| {
                        format!("#PLY, a number (the ply of the board you saw), not {word}")
                    })?);
                } else {
                    moves.push(word.to_owned());
                }
            }
            if moves.is_empty() {
                return Err(
                    "move [GAME-ID] MOVE... [#PLY], for instance `move Ng3-f3 #4` or `move draw`"
                        .into(),
                );
            }
            Ok(Command::Move {
                game: None,
                moves,
                ply,
            })
        }
        "show" | "board" => optional_id(rest, "show [GAME-ID]").map(Command::Show),
        "list" | "games" => Ok(Command::List),
        "resign" => optional_id(rest, "resign [GAME-ID]").map(Command::Resign),
        _ => Err("a command (send `help`)".into()),
    }
}

/// The help text.
pub const HELP: &str = "\
Commands (one per line, in the subject or the body, any case):

  help                                  this text
  challenge GAME [RULESET] [ADDRESS]    a new game: khan (basic, magician, power-magician,
                                        rescue-general, rescue-khan), castle-siege
                                        (standard-faithful by default; two players: each
                                        first sends a secret setup, then one order per mail,
                                        the allowance first; standard: a whole turn per
                                        mail), genghis-khan (solo, against
                                        the robot: `move start` lays out the Foe rows);
                                        add `second` to take the second seat;
                                        without ADDRESS anyone may join
  join GAME-ID   (or: accept GAME-ID)   take the open seat of a challenge
  move [GAME-ID] MOVE... [#PLY]         your turn; #PLY refuses the mail if the game moved on
  show [GAME-ID]                        the board
  list                                  your games
  resign [GAME-ID]
  offer draw [GAME-ID]      accept draw [GAME-ID]      decline draw [GAME-ID]
  offer takeback [GAME-ID]  accept takeback [GAME-ID]  decline takeback [GAME-ID]

Khan: a move as the record writes it (Ng3-f5), short (Nf5, Ngf5, Mxe5) or from-to (g3f5);
  an ambiguous one is answered with the moves it could be. The record keeps the long form.
Castle Siege: the setup is one move, e.g.  move GAME-ID Defender:CKAO/OACK/KCOA/AOKC
  or  move GAME-ID Attacker:KKRTTRKK/AA/SS/CC/CC/SS/AA/KKRTTRKK  (kept secret until both
  are in); then, as the rules play it (standard-faithful), one order per mail, each answered
  with its die:  move GAME-ID Move  (the allowance), then  move GAME-ID Kb3-b4  for each step,
  move GAME-ID Breach Rb6#c6, move GAME-ID Attack Ab5xKc5, ..., move GAME-ID End;
  under  standard  a whole turn per mail, e.g.  move GAME-ID Move Kb3-b4 Attack Ab5xKc5 End
  (short: move GAME-ID move b3b4 attack b5xc5 end).
Genghis Khan: a capture may leave out the Foe card: pay:10b+9e (or card names, prefixes).

Every command mail carries your token on a line of its own:  token: XXXX
A line `seed: any words you like` enters the dice and cards of that mail's moves.
Without a game id, a reply to the robot's mail means that game, and otherwise your only game.
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_read_from_subject_and_body_in_any_case() {
        let p = parse(
            "CHALLENGE Khan rescue-khan Bob@Example.org",
            "token: abc123\nseed: my lucky words\nMove g-1 Ng3-f3 #4\n> move Kb1-b2\nshow\n-- \nmove nope\n",
        );
        assert_eq!(p.token.as_deref(), Some("abc123"));
        assert_eq!(p.seed.as_deref(), Some("my lucky words"));
        assert_eq!(
            p.commands,
            vec![
                Command::Challenge {
                    game: "khan".into(),
                    ruleset: Some("rescue-khan".into()),
                    invited: Some("bob@example.org".into()),
                    second: false
                },
                Command::Move {
                    game: None,
                    moves: vec!["g-1".into(), "Ng3-f3".into()],
                    ply: Some(4)
                },
                Command::Show(None),
            ]
        );
    }

    #[test]
    fn a_reply_subject_and_prose_are_not_commands() {
        let p = parse(
            "Re: [Yam] Khan g-1 #3: Ann vs Bo",
            "Thanks, nice game!\nI will move tomorrow.\n",
        );
        assert_eq!(p, Parsed::default());
    }

    /// A subject is never the start of a quoted original (found by the
    /// `robot_command` fuzz target): a subject that reads like a header
    /// line (`From: ...`) does not hide the body's commands, where the same
    /// line at the top of the body, with a `Subject:` line below it, starts
    /// an Outlook-style original and ends what the sender wrote.
    #[test]
    fn a_subject_like_a_header_line_does_not_cut_the_body() {
        let body = "offer draw\nSubject: hello\n";
        let p = parse("From: ann@example.org", body);
        assert_eq!(p.commands, vec![Command::Offer(Offer::Draw, None)]);
        let as_body = parse("", &format!("From: ann@example.org\n{body}"));
        assert_eq!(as_body, Parsed::default());
    }

    #[test]
    fn a_malformed_command_says_what_was_expected() {
        let p = parse(
            "",
            "move #x Ng3-f3\njoin\noffer flowers\naccept draw g1 g2\n",
        );
        assert!(p.commands.is_empty());
        assert_eq!(p.errors.len(), 4);
        assert!(p.errors[0].expected.contains("#PLY"), "{:?}", p.errors);
        assert_eq!(p.errors[1].expected, "join GAME-ID");
        assert!(p.errors[2].expected.starts_with("offer draw"));
        // The legal forms are accepted.
        let ok = parse(
            "",
            "accept draw g1\ndecline takeback\noffer draw\naccept g1\n",
        );
        assert_eq!(
            ok.commands,
            vec![
                Command::Answer(Offer::Draw, true, Some("g1".into())),
                Command::Answer(Offer::Takeback, false, None),
                Command::Offer(Offer::Draw, None),
                Command::Join("g1".into()),
            ]
        );
    }

    #[test]
    fn quoted_card_names_stay_one_move() {
        let p = parse("", "move capture:M7/\"Army of Toghril\"=8d #6\n");
        assert_eq!(
            p.commands,
            vec![Command::Move {
                game: None,
                moves: vec!["capture:M7/\"Army of Toghril\"=8d".into()],
                ply: Some(6)
            }]
        );
    }

    #[test]
    fn too_many_commands_are_cut() {
        let body = "show\n".repeat(MAX_COMMANDS + 5);
        let p = parse("", &body);
        assert_eq!(p.commands.len(), MAX_COMMANDS);
        assert!(p.truncated);
    }

    #[test]
    fn the_first_token_of_the_unquoted_text_counts() {
        // An Outlook-style reply: the answer on top, the original
        // invitation unquoted below, with its template line.
        let body = "join khan-1\ntoken: 0123abcd\n\nAnn\n\n\
                    -----Original Message-----\n\
                    From: Yam robot <robot@yam.test>\n\
                    Sent: Monday\n\
                    Subject: [Yam] ann challenges you\n\n\
                    To play, reply with the lines\n\n  join khan-1\n  token: YOUR-TOKEN\n";
        let p = parse("RE: [Yam] ann challenges you", body);
        assert_eq!(p.token.as_deref(), Some("0123abcd"));
        assert_eq!(p.commands, vec![Command::Join("khan-1".into())]);
        // Without a separator line, the first token line still counts.
        let p = parse("", "token: first\nshow\ntoken: YOUR-TOKEN\n");
        assert_eq!(p.token.as_deref(), Some("first"));
        // A header block starts the original too; a lone `From:` in prose
        // does not.
        let p = parse(
            "",
            "show\ntoken: t1\nFrom: robot@yam.test\nDate: today\nlist\n",
        );
        assert_eq!(p.commands, vec![Command::Show(None)]);
        let p = parse("", "From: my phone\nshow\n\ntoken: t1\n");
        assert_eq!(p.commands, vec![Command::Show(None)]);
        // Outlook's line of underscores.
        let p = parse(
            "",
            "list\ntoken: t2\n________________________________\njoin x\n",
        );
        assert_eq!(p.commands, vec![Command::List]);
    }

    #[test]
    fn an_original_starts_in_the_mail_programs_language_too() {
        for separator in [
            "-----Ursprüngliche Nachricht-----\nVon: Yam robot\nGesendet: Montag\n",
            "-----Message d'origine-----\nDe : Yam robot\nEnvoyé : lundi\n",
            "-------- Forwarded Message --------\n",
            "De : Yam robot [mailto:robot@yam.test]\nEnvoyé : lundi 7 décembre\nÀ : ann\n",
            "Von: Yam robot <robot@yam.test>\nGesendet: Montag\nAn: ann\nBetreff: x\n",
            "Da: robot@yam.test\nInviato: lunedì\n",
            "差出人: robot@yam.test\n件名: [Yam]\n",
        ] {
            let body = format!("show g\ntoken: t\n\n{separator}\n  move g Defender:ACOO #0\n");
            let p = parse("", &body);
            assert_eq!(
                p.commands,
                vec![Command::Show(Some("g".into()))],
                "{separator}"
            );
        }
        // A player's own lines with a colon start nothing: a token, a
        // Genghis Khan move, a label in prose without a second header.
        let p = parse(
            "",
            "token: t\nmove g capture:M7/\"Army\"=8d\nDe: moi\nshow g\n",
        );
        assert_eq!(p.commands.len(), 2, "{:?}", p.commands);
    }

    /// A player who signs her mails inline (OpenPGP clear-signed text, as
    /// Mailvelope, Enigmail or K-9 send it) writes her commands between
    /// `-----BEGIN PGP SIGNED MESSAGE-----` and the signature: a dashed
    /// line around words, but no original below a reply. Read as one, it
    /// cut off every command of the mail.
    #[test]
    fn an_inline_signed_mail_is_read_not_taken_for_an_original() {
        let body = "-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256\n\ntoken: t\nshow g\n\
                    -----BEGIN PGP SIGNATURE-----\n\niQEzBAEBCAAdFiEE\n=Ab1c\n-----END PGP SIGNATURE-----\n";
        let p = parse("", body);
        assert_eq!(p.token.as_deref(), Some("t"), "{p:?}");
        assert_eq!(p.commands, vec![Command::Show(Some("g".into()))], "{p:?}");
    }

    /// Outlook's header block above a reply's original, in the languages
    /// whose `From` label the robot lists (`Kimden`, `Feladó`, `Od`): the
    /// block's other labels (`Gönderildi`, `Kime`, `Konu`; `Elküldve`,
    /// `Címzett`, `Tárgy`; `Odesláno`, `Komu`, `Předmět`) must start the
    /// original too, or the robot's own suggested placement below is
    /// obeyed as the player's, as a German Outlook's reply was.
    #[test]
    fn an_original_below_a_turkish_hungarian_or_czech_outlook_reply_is_not_obeyed() {
        let obeyed = [
            "Kimden: Yam robot <robot@yam.test>\nGönderildi: 7 Aralık 2026 Pazartesi 17:00\nKime: ann@player.test\nKonu: [Yam] g\n",
            "Feladó: Yam robot <robot@yam.test>\nElküldve: 2026. december 7., hétfő 17:00\nCímzett: ann@player.test\nTárgy: [Yam] g\n",
            "Od: Yam robot <robot@yam.test>\nOdesláno: pondělí 7. prosince 2026 17:00\nKomu: ann@player.test\nPředmět: [Yam] g\n",
        ]
        .into_iter()
        .filter(|block| {
            let body = format!("show g\ntoken: t\n\n{block}\n  move g Defender:ACOO #0\n");
            parse("", &body).commands != vec![Command::Show(Some("g".into()))]
        })
        .collect::<Vec<_>>();
        assert!(
            obeyed.is_empty(),
            "the original's move was obeyed below:\n{}",
            obeyed.join("\n")
        );
    }

    #[test]
    fn a_move_wrapped_by_a_mail_program_is_one_move_and_prose_is_not_joined() {
        // Outlook's plain text, wrapped at 76 columns without a mark.
        let p = parse(
            "",
            "move castle-siege-20261207-a4033fd3 Move Ac4-d4 Cd3-c3 Ac4-c3 Ad5-c5\n\
             Ad5-c6 Ad6-c5 Attack Ac4xAa5 Cc5xAd8\nEnd #4\ntoken: t\n",
        );
        let [Command::Move { moves, ply, .. }] = p.commands.as_slice() else {
            panic!("{p:?}")
        };
        assert_eq!(
            moves.join(" "),
            "castle-siege-20261207-a4033fd3 Move Ac4-d4 Cd3-c3 Ac4-c3 Ad5-c5 Ad5-c6 Ad6-c5 \
             Attack Ac4xAa5 Cc5xAd8 End"
        );
        assert_eq!(*ply, Some(4));
        assert_eq!(p.token.as_deref(), Some("t"));
        // Prose, a command and an empty line are no continuation.
        for after in ["thanks, Ad5-c6 was good", "show g", "", "token: t"] {
            let p = parse("", &format!("move g Ab5-c5\n{after}\n"));
            let Command::Move { moves, .. } = &p.commands[0] else {
                panic!("{p:?}")
            };
            assert_eq!(moves.join(" "), "g Ab5-c5", "{after:?}");
        }
    }

    #[test]
    fn long_inputs_are_quoted_in_part() {
        let token = "x".repeat(100_000);
        let quoted = quote_part(&token, 200);
        assert!(quoted.starts_with(&"x".repeat(QUOTED)));
        assert!(quoted.ends_with("… (100000 bytes)"), "{quoted}");
        assert!(quoted.len() < 200);
        assert_eq!(quote_part("move a1-a2", 200), "move a1-a2");
        let text = format!("Refused: {token} is not a move\n\nBoard\n");
        let short = shorten_words(&text);
        assert!(short.starts_with("Refused: xxxx"));
        assert!(
            short.ends_with("… (100000 bytes) is not a move\n\nBoard\n"),
            "{short}"
        );
        let p = parse("", &format!("move {token}\n"));
        assert_eq!(p.commands.len(), 1);
        let bad = parse("", &format!("join {token} {token}\n"));
        assert!(
            bad.errors[0].line.ends_with("(200006 bytes)"),
            "{:?}",
            bad.errors
        );
    }

    #[test]
    fn two_word_game_names_read() {
        let p = parse("challenge genghis khan", "");
        assert_eq!(
            p.commands,
            vec![Command::Challenge {
                game: "genghis-khan".into(),
                ruleset: None,
                invited: None,
                second: false
            }]
        );
    }
}
