//! `yam export`: for readers. `--plain` writes the reader's copy of a
//! record, without the machine evidence; `--html` writes a static site of
//! archives (see `html`).

mod html;

use std::io::Write;
use std::path::PathBuf;

use crate::game::rulesets::RecordRulesets;
use yam_notation::{RawGrammar, read_all, write_archive};
use yam_referee::signed::write::plain;
use yam_referee::signed::{Verdict, verify_text};

use crate::error::{Error, Result, Status};
use crate::game::record::read_signed;
use crate::store::atomic;

/// Arguments of `yam export`.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("format").required(true).args(["plain", "html"])))]
pub struct ExportArgs {
    /// Strip the signed evidence ([%event] commands and the fair-play tags),
    /// keeping moves, prose, NAGs, variations and readable dice. Takes one
    /// record file.
    #[arg(long)]
    pub plain: bool,
    /// Write a static HTML site of the archives into the directory OUT: an
    /// index, and a page per game with diagrams to step through.
    #[arg(long, requires = "out")]
    pub html: bool,
    /// The record files (every game of each is exported); with --html,
    /// directories too, searched for .yam files.
    #[arg(value_name = "ARCHIVE", required = true)]
    pub files: Vec<PathBuf>,
    /// --plain: write here instead of standard output. --html: the site's
    /// directory (created if missing; the site's files in it are replaced).
    #[arg(short, long, value_name = "OUT")]
    pub out: Option<PathBuf>,
    /// --plain: replace OUT if it exists.
    #[arg(long)]
    pub force: bool,
}

/// Run `yam export`.
pub fn run(args: &ExportArgs) -> Result<Status> {
    if args.html {
        let Some(out) = &args.out else {
            return Err(Error::usage("yam export --html needs --out DIR"));
        };
        return html::export(&args.files, out);
    }
    let [file] = &args.files[..] else {
        return Err(Error::usage("yam export --plain takes one record file"));
    };
    run_plain(args, file)
}

fn run_plain(args: &ExportArgs, file: &std::path::Path) -> Result<Status> {
    let text = std::fs::read(file).map_err(|e| Error::io(file, "cannot read", e))?;
    let records =
        read_all::<RawGrammar, _>(&text[..]).map_err(|e| Error::io(file, "cannot read", e))?;
    let signed = read_signed(&text[..]).map_err(|e| Error::io(file, "cannot read", e))?;
    let rulesets = RecordRulesets::beside(file);
    let mut out_records = Vec::new();
    for (i, (record, signed)) in records.iter().zip(&signed).enumerate() {
        let (Ok(record), Ok(signed)) = (record, signed) else {
            return Err(Error::invalid(format!(
                "{}: game {} has a syntax error (see `yam check`); nothing exported",
                file.display(),
                i + 1
            )));
        };
        let note = match verify_text(signed, &rulesets) {
            Verdict::Verified(v) if v.is_practice() => {
                "removed by yam export --plain; the original is an unverified practice game"
                    .to_owned()
            }
            Verdict::Verified(_) => {
                "removed by yam export --plain; the original verified (yam verify)".to_owned()
            }
            Verdict::Unsigned => "none: the original was not signed".to_owned(),
            Verdict::Failed(f) => format!(
                "removed by yam export --plain; the original did NOT verify: {}",
                f.reason
            ),
        };
        out_records.push(plain(record, &note));
    }
    let mut printed = String::new();
    write_archive::<RawGrammar>(&out_records, &mut printed);
    match &args.out {
        Some(path) => {
            atomic::write(path, printed.as_bytes(), args.force)
                .map_err(|e| Error::io(path, "cannot write", e))?;
        }
        None => std::io::stdout()
            .lock()
            .write_all(printed.as_bytes())
            .map_err(|e| Error::io("standard output", "cannot write", e))?,
    }
    Ok(Status::Valid)
}
