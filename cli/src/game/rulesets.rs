//! Rulesets as records name them: a built-in name (`rescue-khan`), or a
//! Khan ruleset file by its path relative to the record's directory
//! (`rulesets/spells.yaml`; `docs/notation.md`, "Rulesets of one's own").
//!
//! The referee decides what a `Ruleset` tag means and which paths a record
//! may name (`yam_referee::ruleset_name`); this module does the reading,
//! because all of Yam's I/O lives in the command line. Every command that
//! replays a record (`check`, `verify`, `show`, `hotseat`, `dispute`,
//! `export`, `engine export`) takes its rulesets from here, so they all
//! resolve a tag the same way.

use std::io::Read;
use std::path::{Component, Path, PathBuf};

use yam_notation::GameKind;
use yam_referee::khan;
use yam_referee::replay::{Builtin, GameReplay, LoadedRuleset, RulesCatalog};
use yam_referee::ruleset_error::{FileProblem, RulesetError, RulesetPathError};
use yam_referee::ruleset_name::{MAX_FILE_BYTES, RulesetName};

/// The rulesets a record may name: the built-in ones, and ruleset files in
/// the record's directory or below it.
#[derive(Debug, Clone)]
pub struct RecordRulesets {
    dir: PathBuf,
}

impl RecordRulesets {
    /// The rulesets of the record at `record` (`-`, standard input, takes
    /// its files from the current directory).
    pub fn beside(record: &Path) -> RecordRulesets {
        let dir = if record.as_os_str() == "-" {
            PathBuf::from(".")
        } else {
            match record.parent() {
                Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                _ => PathBuf::from("."),
            }
        };
        RecordRulesets { dir }
    }

    /// The file a tag's path parts name.
    fn path_of(&self, parts: &[&str]) -> PathBuf {
        parts.iter().fold(self.dir.clone(), |p, part| p.join(part))
    }

    /// The text of a ruleset file, or why it cannot be read.
    fn read(&self, path: &Path) -> Result<String, RulesetError> {
        let unreadable = |problem| RulesetError::Unreadable {
            path: path.to_path_buf(),
            problem,
        };
        let file =
            std::fs::File::open(path).map_err(|e| unreadable(FileProblem::Open(e.to_string())))?;
        if file.metadata().is_ok_and(|m| !m.is_file()) {
            return Err(unreadable(FileProblem::NotAFile));
        }
        let mut bytes = Vec::new();
        file.take(MAX_FILE_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| unreadable(FileProblem::Read(e.to_string())))?;
        if bytes.len() as u64 > MAX_FILE_BYTES {
            return Err(unreadable(FileProblem::TooLarge));
        }
        String::from_utf8(bytes).map_err(|e| {
            unreadable(FileProblem::NotUtf8 {
                byte: e.utf8_error().valid_up_to() + 1,
            })
        })
    }
}

impl RulesCatalog for RecordRulesets {
    fn load_ruleset(&self, game: GameKind, name: &str) -> Result<LoadedRuleset, RulesetError> {
        let parts = match RulesetName::parse(name)? {
            RulesetName::Builtin(builtin) => return Builtin.load_ruleset(game, builtin),
            RulesetName::File(parts) => parts,
        };
        if game != GameKind::Khan {
            return Err(RulesetError::FileForGame { game });
        }
        let path = self.path_of(&parts);
        let text = self.read(&path)?;
        // Read it now, so that a bad file is reported with its own name,
        // line and column rather than as a game that cannot start.
        khan::Ruleset::from_yaml(&text)
            .map_err(|error| RulesetError::InvalidFile { path, error })?;
        Ok(LoadedRuleset {
            game,
            name: name.to_owned(),
            text,
        })
    }

    fn start(&self, ruleset: &LoadedRuleset) -> Result<Box<dyn GameReplay>, RulesetError> {
        Builtin.start(ruleset)
    }
}

/// The Khan ruleset a record at `record` names by `tag`, parsed.
pub fn khan_ruleset(record: &Path, tag: &str) -> Result<khan::Ruleset, RulesetError> {
    let loaded = RecordRulesets::beside(record).load_ruleset(GameKind::Khan, tag)?;
    khan::Ruleset::from_yaml(&loaded.text).map_err(|error| RulesetError::Invalid {
        name: tag.to_owned(),
        error,
    })
}

/// Why a ruleset file cannot be named by a record's `Ruleset` tag.
#[derive(Debug, thiserror::Error)]
pub enum TagError {
    /// The file cannot be found.
    #[error("{}: cannot open: {source}", file.display())]
    File {
        /// The ruleset file.
        file: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The record's directory cannot be found.
    #[error("{}: cannot open the record's directory: {source}", dir.display())]
    Directory {
        /// The record's directory.
        dir: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not in the record's directory or below it.
    #[error(
        "{}: a record names its ruleset file by a path relative to the record's directory that only goes down, so the file must be in {} or below it (for example {})",
        file.display(),
        dir.display(),
        dir.join("rulesets").join("NAME.yaml").display()
    )]
    Outside {
        /// The ruleset file.
        file: PathBuf,
        /// The record's directory.
        dir: PathBuf,
    },
    /// The path from the record's directory is not UTF-8.
    #[error("{}: the path is not UTF-8, so no record can name it", file.display())]
    NotUtf8 {
        /// The ruleset file.
        file: PathBuf,
    },
    /// The file's name does not end in `.yaml` or `.yml`.
    #[error(
        "{}: a ruleset file's name must end in .yaml or .yml, so that the record's Ruleset tag cannot be taken for a built-in ruleset's name",
        file.display()
    )]
    NotYaml {
        /// The ruleset file.
        file: PathBuf,
    },
    /// The path is not one a `Ruleset` tag may give.
    #[error("{}: {source}", file.display())]
    Path {
        /// The ruleset file.
        file: PathBuf,
        /// Why, in the referee's words.
        source: RulesetPathError,
    },
}

/// The `Ruleset` tag that names the ruleset file `file` from a record to be
/// written at `record`: its path relative to the record's directory, with
/// `/` between folders. The file must be in that directory or below it.
pub fn tag_for(file: &Path, record: &Path) -> Result<String, TagError> {
    let file_abs = std::fs::canonicalize(file).map_err(|source| TagError::File {
        file: file.to_path_buf(),
        source,
    })?;
    let dir = RecordRulesets::beside(record).dir;
    let dir_abs = std::fs::canonicalize(&dir).map_err(|source| TagError::Directory {
        dir: dir.clone(),
        source,
    })?;
    let outside = || TagError::Outside {
        file: file.to_path_buf(),
        dir: dir.clone(),
    };
    let relative = file_abs.strip_prefix(&dir_abs).map_err(|_| outside())?;
    let mut parts = Vec::new();
    for component in relative.components() {
        match component {
            Component::Normal(part) => {
                parts.push(part.to_str().ok_or_else(|| TagError::NotUtf8 {
                    file: file.to_path_buf(),
                })?)
            }
            _ => return Err(outside()),
        }
    }
    let tag = parts.join("/");
    match RulesetName::parse(&tag) {
        Ok(name) if name.is_file() => Ok(tag),
        Ok(_) => Err(TagError::NotYaml {
            file: file.to_path_buf(),
        }),
        Err(source) => Err(TagError::Path {
            file: file.to_path_buf(),
            source,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn a_tag_names_a_built_in_ruleset_or_a_file_beside_the_record() {
        let dir = tempfile::tempdir().unwrap();
        let text = khan::ruleset::BUILTIN[0].1;
        write(dir.path(), "rulesets/mine.yaml", text);
        let record = dir.path().join("game.yam");
        let catalog = RecordRulesets::beside(&record);
        let mine = catalog
            .load_ruleset(GameKind::Khan, "rulesets/mine.yaml")
            .unwrap();
        assert_eq!(mine.name, "rulesets/mine.yaml");
        assert_eq!(mine.text, text);
        assert_eq!(
            catalog
                .load_ruleset(GameKind::Khan, "basic")
                .unwrap()
                .hash(),
            mine.hash()
        );
        assert!(catalog.start(&mine).is_ok());
        let e = catalog
            .load_ruleset(GameKind::Khan, "rulesets/missing.yaml")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("rulesets/missing.yaml") && e.contains("cannot open"),
            "{e}"
        );
        let e = catalog
            .load_ruleset(GameKind::Khan, "../mine.yaml")
            .unwrap_err()
            .to_string();
        assert!(e.contains(". or .."), "{e}");
        let e = catalog
            .load_ruleset(GameKind::CastleSiege, "rulesets/mine.yaml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("Khan games only"), "{e}");
    }

    #[test]
    fn a_bad_ruleset_file_is_reported_with_its_name_line_and_column() {
        let dir = tempfile::tempdir().unwrap();
        let bad = khan::ruleset::BUILTIN[0]
            .1
            .replace("exchanges: false", "exchange: false");
        write(dir.path(), "bad.yaml", &bad);
        let line = bad
            .lines()
            .position(|l| l.contains("exchange: false"))
            .unwrap()
            + 1;
        let e = RecordRulesets::beside(&dir.path().join("g.yam"))
            .load_ruleset(GameKind::Khan, "bad.yaml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("bad.yaml"), "{e}");
        assert!(e.contains(&format!("line {line}, column 3")), "{e}");
        assert!(e.contains("unknown field `exchange`"), "{e}");
        write(dir.path(), "big.yaml", &"#".repeat(2 << 20));
        let e = RecordRulesets::beside(&dir.path().join("g.yam"))
            .load_ruleset(GameKind::Khan, "big.yaml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("too large"), "{e}");
        std::fs::create_dir(dir.path().join("dir.yaml")).unwrap();
        let e = RecordRulesets::beside(&dir.path().join("g.yam"))
            .load_ruleset(GameKind::Khan, "dir.yaml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("dir.yaml"), "{e}");
    }

    #[test]
    fn the_tag_for_a_file_is_its_path_from_the_record() {
        let dir = tempfile::tempdir().unwrap();
        let file = write(dir.path(), "rulesets/mine.yaml", "x");
        let record = dir.path().join("game.yam");
        assert_eq!(tag_for(&file, &record).unwrap(), "rulesets/mine.yaml");
        let deeper = dir.path().join("rulesets").join("g.yam");
        assert_eq!(tag_for(&file, &deeper).unwrap(), "mine.yaml");
        let elsewhere = dir.path().join("games").join("g.yam");
        std::fs::create_dir(dir.path().join("games")).unwrap();
        let e = tag_for(&file, &elsewhere).unwrap_err();
        assert!(matches!(e, TagError::Outside { .. }), "{e:?}");
        assert!(e.to_string().contains("or below it"), "{e}");
        let txt = write(dir.path(), "rules.txt", "x");
        let e = tag_for(&txt, &record).unwrap_err();
        assert!(matches!(e, TagError::NotYaml { .. }), "{e:?}");
        assert!(e.to_string().contains(".yaml or .yml"), "{e}");
        let e = tag_for(&dir.path().join("missing.yaml"), &record).unwrap_err();
        assert!(matches!(e, TagError::File { .. }), "{e:?}");
        assert!(e.to_string().contains("missing.yaml: cannot open: "), "{e}");
    }
}
