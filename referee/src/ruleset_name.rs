//! What a record's `Ruleset` tag names: a ruleset built into Yam
//! (`rescue-khan`), or a ruleset file of one's own, by its path relative to
//! the record's directory (`rulesets/spells.yaml`).
//!
//! The referee reads no files. This module only decides what a tag means
//! and whether a path is one a record may name; the command line reads the
//! file (`yam_cli::rulesets`) and hands its text over as a
//! [`LoadedRuleset`](crate::replay::LoadedRuleset), whose hash the signed
//! opening pins, so a ruleset file changed after the game began no longer
//! verifies.
//!
//! A record travels by mail, so its tag is hostile input: it may only name a
//! file in the record's directory or below it (no absolute path, no `..`),
//! and the name must end in `.yaml` or `.yml`, so that no built-in name is
//! ever mistaken for a file and no record can make Yam read, say, a key file.

use yam_notation::GameKind;

use crate::ruleset_error::{BadPath, RulesetError, RulesetPathError};
use crate::{castle_siege, genghis_khan, khan};

/// The endings that mark a `Ruleset` tag as a file's path.
pub const FILE_ENDINGS: [&str; 2] = [".yaml", ".yml"];

/// The largest ruleset file Yam reads, in bytes: the standard ones are about
/// 1.5 KiB, so this leaves room for comments and refuses anything absurd.
pub const MAX_FILE_BYTES: u64 = 1 << 20;

/// The longest path a `Ruleset` tag may give, in bytes.
pub(crate) const MAX_PATH_BYTES: usize = 1024;

/// What a `Ruleset` tag names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RulesetName<'a> {
    /// A built-in ruleset, by name.
    Builtin(&'a str),
    /// A ruleset file: the parts of its path relative to the record's
    /// directory, the last one the file's name.
    File(Vec<&'a str>),
}

impl<'a> RulesetName<'a> {
    /// Reads a `Ruleset` tag. A value with a `/` or `\`, or ending in
    /// `.yaml` or `.yml`, is a file's path and must be one a record may
    /// name; any other value is a built-in name (whether one exists is the
    /// catalogue's question).
    pub fn parse(tag: &'a str) -> Result<RulesetName<'a>, RulesetPathError> {
        let lower = tag.to_ascii_lowercase();
        let looks_like_file =
            tag.contains(['/', '\\']) || FILE_ENDINGS.iter().any(|end| lower.ends_with(end));
        if !looks_like_file {
            return Ok(RulesetName::Builtin(tag));
        }
        let refuse = |why: BadPath| {
            Err(RulesetPathError {
                tag: tag.to_owned(),
                why,
            })
        };
        if tag.len() > MAX_PATH_BYTES {
            return refuse(BadPath::TooLong);
        }
        if tag.contains('\\') {
            return refuse(BadPath::Backslash);
        }
        if tag.chars().any(char::is_control) {
            return refuse(BadPath::ControlCharacter);
        }
        if tag.chars().any(yam_notation::is_hidden) {
            return refuse(BadPath::Invisible);
        }
        if tag.starts_with('/') || tag.contains(':') {
            return refuse(BadPath::Absolute);
        }
        let parts: Vec<&str> = tag.split('/').collect();
        if parts.iter().any(|p| p.is_empty()) {
            return refuse(BadPath::EmptyPart);
        }
        if parts.iter().any(|p| *p == "." || *p == "..") {
            return refuse(BadPath::Dots);
        }
        let last = parts
            .last()
            .map_or_else(String::new, |p| p.to_ascii_lowercase());
        if !FILE_ENDINGS
            .iter()
            .any(|end| last.ends_with(end) && last.len() > end.len())
        {
            return refuse(BadPath::NotYaml);
        }
        Ok(RulesetName::File(parts))
    }

    /// Whether this names a file.
    pub fn is_file(&self) -> bool {
        matches!(self, RulesetName::File(_))
    }
}

/// Whether two names name the same built-in ruleset: case, `-` and `_`
/// are not significant, so `Rescue_Khan`, `rescuekhan` (the engine
/// protocol's board name) and `rescue-khan` are one name. Every lookup of a
/// built-in ruleset goes through this one rule.
pub fn same_name(a: &str, b: &str) -> bool {
    let fold = |s: &'_ str| {
        s.chars()
            .filter(|c| !matches!(c, '-' | '_'))
            .map(|c| c.to_ascii_lowercase())
            .collect::<String>()
    };
    fold(a) == fold(b)
}

/// The rulesets built into Yam for `game`, each its name and its text.
pub fn builtins(game: GameKind) -> &'static [(&'static str, &'static str)] {
    match game {
        GameKind::Khan => &khan::ruleset::BUILTIN,
        GameKind::CastleSiege => &castle_siege::ruleset::BUILTIN,
        GameKind::GenghisKhan => &genghis_khan::ruleset::BUILTIN,
    }
}

/// The built-in ruleset of `game` that `name` names ([`same_name`]): its
/// own name and its text.
pub fn builtin(game: GameKind, name: &str) -> Result<(&'static str, &'static str), RulesetError> {
    builtins(game)
        .iter()
        .find(|(n, _)| same_name(n, name))
        .copied()
        .ok_or_else(|| RulesetError::Unknown {
            game,
            name: name.to_owned(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_names_and_file_paths_are_told_apart() {
        assert_eq!(
            RulesetName::parse("rescue-khan"),
            Ok(RulesetName::Builtin("rescue-khan"))
        );
        assert_eq!(
            RulesetName::parse("Rescue Khan"),
            Ok(RulesetName::Builtin("Rescue Khan"))
        );
        assert_eq!(
            RulesetName::parse("rulesets/spells.yaml"),
            Ok(RulesetName::File(vec!["rulesets", "spells.yaml"]))
        );
        assert_eq!(
            RulesetName::parse("lesson.YML"),
            Ok(RulesetName::File(vec!["lesson.YML"]))
        );
        assert!(RulesetName::parse("a/b/c.yaml").unwrap().is_file());
    }

    #[test]
    fn a_record_cannot_name_a_file_outside_its_directory() {
        for (tag, why) in [
            ("/etc/passwd.yaml", "absolute"),
            ("C:/rules.yaml", "absolute"),
            ("../rules.yaml", ". or .."),
            ("rulesets/../../x.yaml", ". or .."),
            ("./x.yaml", ". or .."),
            ("rulesets//x.yaml", "empty part"),
            ("rulesets/", "empty part"),
            ("rulesets\\x.yaml", "backslash"),
            ("rulesets/x.txt", "does not end in .yaml"),
            ("rulesets/.yaml", "does not end in .yaml"),
            ("rules\n.yaml", "control character"),
        ] {
            let e = RulesetName::parse(tag).expect_err(tag).to_string();
            assert!(e.contains(why), "{tag:?}: {e}");
            assert!(e.contains("rulesets/NAME.yaml"), "{e}");
        }
        let long = format!("{}.yaml", "a/".repeat(600));
        assert!(
            RulesetName::parse(&long)
                .unwrap_err()
                .to_string()
                .contains("longer")
        );
    }

    #[test]
    fn every_game_looks_its_built_in_rulesets_up_by_one_name_rule() {
        assert!(same_name("Rescue_Khan", "rescue-khan"));
        assert!(same_name("rescuekhan", "RESCUE-KHAN"));
        assert!(!same_name("rescue khan", "rescue-khan"));
        for (game, written, found) in [
            (GameKind::Khan, "Power_Magician", "power-magician"),
            (
                GameKind::CastleSiege,
                "castlewiderocks",
                "castle-wide-rocks",
            ),
            (GameKind::GenghisKhan, "STAN-DARD", "standard"),
        ] {
            assert_eq!(builtin(game, written).unwrap().0, found);
        }
        let e = builtin(GameKind::Khan, "chess").unwrap_err().to_string();
        assert_eq!(
            e,
            "no standard Khan ruleset is called \"chess\"; there are basic, magician, power-magician, rescue-general, rescue-khan"
        );
        let e = builtin(GameKind::GenghisKhan, "chess").unwrap_err();
        assert!(e.to_string().ends_with("; there is standard"), "{e}");
    }
}
