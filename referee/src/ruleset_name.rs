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

/// The endings that mark a `Ruleset` tag as a file's path.
pub const FILE_ENDINGS: [&str; 2] = [".yaml", ".yml"];

/// The largest ruleset file Yam reads, in bytes: the standard ones are about
/// 1.5 KiB, so this leaves room for comments and refuses anything absurd.
pub const MAX_FILE_BYTES: u64 = 1 << 20;

/// The longest path a `Ruleset` tag may give, in bytes.
const MAX_PATH_BYTES: usize = 1024;

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
    pub fn parse(tag: &'a str) -> Result<RulesetName<'a>, String> {
        let lower = tag.to_ascii_lowercase();
        let looks_like_file =
            tag.contains(['/', '\\']) || FILE_ENDINGS.iter().any(|end| lower.ends_with(end));
        if !looks_like_file {
            return Ok(RulesetName::Builtin(tag));
        }
        let refuse = |why: &str| {
            Err(format!(
                "the Ruleset tag {tag:?} names a ruleset file, but {why}; a record names its ruleset file by a path relative to the record's directory that only goes down, such as rulesets/NAME.yaml"
            ))
        };
        if tag.len() > MAX_PATH_BYTES {
            return refuse(&format!("the path is longer than {MAX_PATH_BYTES} bytes"));
        }
        if tag.contains('\\') {
            return refuse("the path contains a backslash (write / between folders)");
        }
        if tag.chars().any(char::is_control) {
            return refuse("the path contains a control character");
        }
        if tag.starts_with('/') || tag.contains(':') {
            return refuse("the path is absolute");
        }
        let parts: Vec<&str> = tag.split('/').collect();
        if parts.iter().any(|p| p.is_empty()) {
            return refuse("the path has an empty part (// or a / at an end)");
        }
        if parts.iter().any(|p| *p == "." || *p == "..") {
            return refuse("the path contains . or ..");
        }
        let last = parts
            .last()
            .map_or_else(String::new, |p| p.to_ascii_lowercase());
        if !FILE_ENDINGS
            .iter()
            .any(|end| last.ends_with(end) && last.len() > end.len())
        {
            return refuse("the file's name does not end in .yaml or .yml");
        }
        Ok(RulesetName::File(parts))
    }

    /// Whether this names a file.
    pub fn is_file(&self) -> bool {
        matches!(self, RulesetName::File(_))
    }
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
            let e = RulesetName::parse(tag).expect_err(tag);
            assert!(e.contains(why), "{tag:?}: {e}");
            assert!(e.contains("rulesets/NAME.yaml"), "{e}");
        }
        let long = format!("{}.yaml", "a/".repeat(600));
        assert!(RulesetName::parse(&long).unwrap_err().contains("longer"));
    }
}
