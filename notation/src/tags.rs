//! The tag-pair header: `[Name "value"]` lines, kept in canonical order.
//!
//! Known tags have a fixed rank; a record's tags are stored in that order,
//! known tags first and unknown tags after them in the order they were read.
//! Storing them sorted (instead of sorting at print time) is what makes
//! parse, print, parse give an equal record.

use std::fmt;

/// The three games Yam knows, as named by the `Game` tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GameKind {
    /// Khan, the chess-like game by innersky.ca, and its siege variants.
    Khan,
    /// Castle Siege, the two-player dice wargame.
    CastleSiege,
    /// Genghis Khan, the solo card game.
    GenghisKhan,
}

impl GameKind {
    /// All games, in documentation order.
    pub const ALL: [GameKind; 3] = [GameKind::Khan, GameKind::CastleSiege, GameKind::GenghisKhan];

    /// The canonical `Game` tag value.
    pub fn name(self) -> &'static str {
        match self {
            GameKind::Khan => "Khan",
            GameKind::CastleSiege => "Castle Siege",
            GameKind::GenghisKhan => "Genghis Khan",
        }
    }

    /// Read a `Game` tag value; case and inner spacing are not significant.
    pub fn from_name(name: &str) -> Option<GameKind> {
        // The canonical spellings first, then the lenient comparison,
        // character by character and without allocating: the reader asks
        // this once per game.
        match name {
            "Khan" => return Some(GameKind::Khan),
            "Castle Siege" => return Some(GameKind::CastleSiege),
            "Genghis Khan" => return Some(GameKind::GenghisKhan),
            _ => {}
        }
        let folded = || {
            name.chars()
                .filter(|c| !c.is_whitespace() && *c != '-' && *c != '_')
                .flat_map(char::to_lowercase)
        };
        GameKind::ALL.into_iter().find(|g| {
            let canonical = g
                .name()
                .chars()
                .filter(|&c| c != ' ')
                .flat_map(char::to_lowercase);
            folded().eq(canonical)
        })
    }

    /// The tags that name the players, first side first.
    pub fn player_tags(self) -> &'static [&'static str] {
        match self {
            GameKind::Khan => &["White", "Black"],
            GameKind::CastleSiege => &["Defender", "Attacker"],
            GameKind::GenghisKhan => &["Player"],
        }
    }
}

impl fmt::Display for GameKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Tags every record must carry, besides the players of its game.
pub const REQUIRED_TAGS: [&str; 7] = [
    "Game",
    "Variant",
    "GameId",
    "Date",
    "Result",
    "NotationVersion",
    "Ruleset",
];

/// The notation version this crate reads and writes.
pub const NOTATION_VERSION: &str = "1";

/// Known tags in canonical order. Unknown tags follow them, in reading order.
pub const KNOWN_TAGS: &[&str] = &[
    // What is played.
    "Game",
    "Variant",
    "GameId",
    // The PGN "seven tag roster", less what Yam names differently.
    "Event",
    "Site",
    "Date",
    "Round",
    // The players of each game, first side first.
    "White",
    "Black",
    "Defender",
    "Attacker",
    "Player",
    "Result",
    "Termination",
    // Format and rules.
    "NotationVersion",
    "Ruleset",
    "RulesetHash",
    // Fair play: mode, keys, chain anchors, commitments.
    "Mode",
    "FirstKey",
    "SecondKey",
    "RefereeKey",
    "FirstAnchor",
    "SecondAnchor",
    "RefereeAnchor",
    "FirstCommitment",
    "SecondCommitment",
    "PracticeSeed",
    // A Genghis Khan game dealt from physical cards: the deal as recorded
    // (`genghis_khan::deal`).
    "FoeLayout",
    "KhanDeck",
    // Presentation.
    "Annotator",
    "Setup",
    "Position",
];

/// The canonical spelling and rank of a known tag name, matched without case.
#[inline(always)]
pub fn known_tag(name: &str) -> Option<(usize, &'static str)> {
    // The length and the first letter single out one candidate (checked by
    // a test below); one comparison without case then decides.
    let first = name.as_bytes().first()?.to_ascii_lowercase();
    let rank = match (name.len(), first) {
        (4, b'g') => 0,
        (7, b'v') => 1,
        (6, b'g') => 2,
        (5, b'e') => 3,
        (4, b's') => 4,
        (4, b'd') => 5,
        (5, b'r') => 6,
        (5, b'w') => 7,
        (5, b'b') => 8,
        (8, b'd') => 9,
        (8, b'a') => 10,
        (6, b'p') => 11,
        (6, b'r') => 12,
        (11, b't') => 13,
        (15, b'n') => 14,
        (7, b'r') => 15,
        (11, b'r') => 16,
        (4, b'm') => 17,
        (8, b'f') => 18,
        (9, b's') => 19,
        (10, b'r') => 20,
        (11, b'f') => 21,
        (12, b's') => 22,
        (13, b'r') => 23,
        (15, b'f') => 24,
        (16, b's') => 25,
        (12, b'p') => 26,
        (9, b'f') => 27,
        (8, b'k') => 28,
        (9, b'a') => 29,
        (5, b's') => 30,
        (8, b'p') => 31,
        _ => return None,
    };
    let known = KNOWN_TAGS[rank];
    (same_text(known.as_bytes(), name.as_bytes()) || known.eq_ignore_ascii_case(name))
        .then_some((rank, known))
}

/// `a == b` for two names of 4 to 16 bytes, as two overlapping word
/// comparisons inline: the reader asks [`known_tag`] of every tag, and `==`
/// on strings is a call to `memcmp` for each. Other lengths compare as usual.
#[inline(always)]
fn same_text(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let word4 = |s: &[u8], at: usize| {
        s.get(at..at + 4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
    };
    let word8 = |s: &[u8], at: usize| {
        s.get(at..at + 8)
            .and_then(|w| w.try_into().ok())
            .map(u64::from_le_bytes)
    };
    match n {
        4..=8 => word4(a, 0) == word4(b, 0) && word4(a, n - 4) == word4(b, n - 4),
        9..=16 => word8(a, 0) == word8(b, 0) && word8(a, n - 8) == word8(b, n - 8),
        _ => a == b,
    }
}

/// Whether `name` is a well-formed tag name: a letter, then letters, digits
/// or underscores.
pub fn is_tag_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphabetic())
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// The header of one record.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tags {
    entries: Vec<(String, String)>,
}

impl Tags {
    /// An empty header.
    pub fn new() -> Tags {
        Tags::default()
    }

    /// The value of a tag, matched without case.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.entries
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Set a tag: replace its value if present, otherwise insert it at its
    /// canonical place. Known names take their canonical spelling.
    pub fn set(&mut self, name: &str, value: impl Into<String>) {
        let value = value.into();
        if let Some(entry) = self
            .entries
            .iter_mut()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
        {
            entry.1 = value;
            return;
        }
        self.insert_new(name, value);
    }

    /// Add a tag the header does not have, at its canonical place: what
    /// [`Tags::set`] does, without looking for the name first. For a caller
    /// that knows the name is new (the reader refuses a game with a tag
    /// twice); `set` would make a header of many tags quadratic to build.
    pub(crate) fn insert_new(&mut self, name: &str, value: String) {
        match known_tag(name) {
            Some((rank, canonical)) => {
                let at = self
                    .entries
                    .iter()
                    .position(|(n, _)| known_tag(n).is_none_or(|(r, _)| r > rank))
                    .unwrap_or(self.entries.len());
                self.entries.insert(at, (canonical.to_owned(), value));
            }
            None => self.entries.push((name.to_owned(), value)),
        }
    }

    /// Remove a tag, returning its value.
    pub fn remove(&mut self, name: &str) -> Option<String> {
        let at = self
            .entries
            .iter()
            .position(|(n, _)| n.eq_ignore_ascii_case(name))?;
        Some(self.entries.remove(at).1)
    }

    /// Whether the tag is present.
    pub fn contains(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// The tags in canonical order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.entries.iter().map(|(n, v)| (n.as_str(), v.as_str()))
    }

    /// The number of tags.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are no tags.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The game the `Game` tag names, if it names one.
    pub fn game(&self) -> Option<GameKind> {
        self.get("Game").and_then(GameKind::from_name)
    }

    /// The required tags this header lacks, for the game it names.
    pub fn missing_required(&self) -> Vec<&'static str> {
        let players = self.game().map(GameKind::player_tags).unwrap_or(&[]);
        REQUIRED_TAGS
            .iter()
            .chain(players)
            .filter(|name| !self.contains(name))
            .copied()
            .collect()
    }
}

/// Append `value` escaped for a tag value (`\"` and `\\`).
pub fn escape_tag_value(value: &str, out: &mut String) {
    for c in value.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
}

/// Whether `bytes` holds a backslash: eight bytes at a time, then the
/// rest one by one. Inline rather than a call to `memchr`, and by words
/// rather than bytes: the reader asks this of a few short values in every
/// header (a byte loop cost about 60 instructions a value).
#[inline(always)]
fn has_backslash(bytes: &[u8]) -> bool {
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        let x = u64::from_le_bytes(word.try_into().unwrap_or_default());
        if crate::lex::swar_eq(x, b'\\') != 0 {
            return true;
        }
    }
    words.remainder().contains(&b'\\')
}

/// Decode an escaped tag value as read between the quotes. The reader has
/// already refused bad escapes, so this cannot fail. Inline, with the
/// decoding itself out of line: nearly every value holds no escape, and
/// its caller then goes on with the value it gave.
#[inline]
pub fn unescape_tag_value(raw: &str) -> std::borrow::Cow<'_, str> {
    if !has_backslash(raw.as_bytes()) {
        return std::borrow::Cow::Borrowed(raw);
    }
    std::borrow::Cow::Owned(unescaped(raw))
}

/// `raw` with its escapes decoded.
#[cold]
#[inline(never)]
fn unescaped(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(next) = chars.next() {
                out.push(next);
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_backslash_is_found_wherever_it_stands() {
        for len in 0..40 {
            for at in 0..=len {
                // Bytes next to a backslash's value, and one with the high
                // bit set besides.
                let mut bytes: Vec<u8> = (0..len)
                    .map(|i| [b'[', b']', 0xdc, b'a', 0x7f][i % 5])
                    .collect();
                assert!(!has_backslash(&bytes), "{len}");
                if at < len {
                    bytes[at] = b'\\';
                    assert!(has_backslash(&bytes), "{len} {at}");
                }
            }
        }
    }

    #[test]
    fn tags_are_kept_in_canonical_order() {
        let mut tags = Tags::new();
        tags.set("Custom", "x");
        tags.set("result", "*");
        tags.set("Game", "Khan");
        tags.set("Another", "y");
        tags.set("Date", "2026.11.29");
        let names: Vec<_> = tags.iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["Game", "Date", "Result", "Custom", "Another"]);
    }

    #[test]
    fn game_names_are_read_leniently() {
        assert_eq!(
            GameKind::from_name("castle siege"),
            Some(GameKind::CastleSiege)
        );
        assert_eq!(
            GameKind::from_name("GenghisKhan"),
            Some(GameKind::GenghisKhan)
        );
        assert_eq!(GameKind::from_name("Chess"), None);
    }

    #[test]
    fn missing_required_tags_depend_on_the_game() {
        let mut tags = Tags::new();
        tags.set("Game", "Genghis Khan");
        let missing = tags.missing_required();
        assert!(missing.contains(&"Player"));
        assert!(!missing.contains(&"White"));
    }

    #[test]
    fn same_text_is_equality() {
        let texts: Vec<String> = (0..20)
            .flat_map(|n| {
                let base: String = "abcdefghijklmnopqrst"[..n].to_owned();
                let mut variants = vec![base.clone()];
                for k in 0..n {
                    let mut v = base.clone().into_bytes();
                    v[k] = b'Z';
                    variants.push(String::from_utf8(v).unwrap());
                }
                variants
            })
            .collect();
        for a in &texts {
            for b in &texts {
                assert_eq!(same_text(a.as_bytes(), b.as_bytes()), a == b, "{a} {b}");
            }
        }
    }

    #[test]
    fn known_tags_are_found_by_length_and_first_letter() {
        let linear = |name: &str| {
            KNOWN_TAGS
                .iter()
                .enumerate()
                .find(|(_, known)| known.eq_ignore_ascii_case(name))
                .map(|(rank, known)| (rank, *known))
        };
        for (rank, known) in KNOWN_TAGS.iter().enumerate() {
            for name in [
                known.to_string(),
                known.to_lowercase(),
                known.to_uppercase(),
                known.replace(|c: char| c.is_ascii_lowercase(), "x"),
                format!("{known}x"),
                known[1..].to_string(),
            ] {
                assert_eq!(known_tag(&name), linear(&name), "{name}");
            }
            assert_eq!(known_tag(known), Some((rank, *known)));
        }
        for name in [
            "",
            "X",
            "Gam",
            "Games",
            "Whitey",
            "K\u{212a}",
            "Résult",
            "Gamé",
        ] {
            assert_eq!(known_tag(name), linear(name), "{name}");
        }
    }

    #[test]
    fn game_names_fold_case_and_spacing_like_before() {
        let reference = |name: &str| {
            let folded: String = name
                .chars()
                .filter(|c| !c.is_whitespace() && *c != '-' && *c != '_')
                .flat_map(char::to_lowercase)
                .collect();
            GameKind::ALL
                .into_iter()
                .find(|g| g.name().replace(' ', "").to_lowercase() == folded)
        };
        for name in [
            "Khan",
            "KHAN",
            " k h a n ",
            "\u{212a}han",
            "Castle Siege",
            "castle-siege",
            "Castle_Siege",
            "CastleSiege",
            "Genghis Khan",
            "genghis\tkhan",
            "Genghis Khan!",
            "Khans",
            "Kha",
            "",
            "\u{130}",
        ] {
            assert_eq!(GameKind::from_name(name), reference(name), "{name:?}");
        }
    }

    #[test]
    fn escapes_round_trip() {
        let mut out = String::new();
        escape_tag_value(r#"a "quoted" \ value"#, &mut out);
        assert_eq!(unescape_tag_value(&out), r#"a "quoted" \ value"#);
    }
}
