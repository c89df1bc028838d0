//! `yam completions` and `yam man`: shell completions and man pages,
//! generated from the same clap definitions as `--help` (the command tree
//! is handed in by `lib.rs`, which owns it), so they never drift from it.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap_complete::Shell;

use crate::error::{Error, Result, Status};

/// Arguments of `yam completions`.
#[derive(Debug, clap::Args)]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish, powershell (or elvish).
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: Shell,
}

/// Arguments of `yam man`.
#[derive(Debug, clap::Args)]
pub struct ManArgs {
    /// The directory to write the pages into (created if missing): yam.1,
    /// and yam-COMMAND.1 for each command and subcommand.
    #[arg(short, long, value_name = "DIR")]
    pub out: PathBuf,
    /// Replace pages that already exist in DIR.
    #[arg(long)]
    pub force: bool,
}

/// `yam completions SHELL`: the completion script on standard output.
pub fn completions(args: &CompletionsArgs, mut cmd: clap::Command) -> Result<Status> {
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "yam", &mut out);
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(&out)
        .and_then(|()| stdout.flush())
        .map_err(|e| Error::usage(format!("write error: {e}")))?;
    Ok(Status::Valid)
}

/// `yam man --out DIR`: a man page for `yam` and for every visible command
/// and subcommand, refusing to replace any page without `--force`.
pub fn man(args: &ManArgs, cmd: clap::Command) -> Result<Status> {
    let mut cmd = cmd.bin_name("yam").disable_help_subcommand(true);
    cmd.build();
    let mut pages = Vec::new();
    collect(&cmd, &mut pages);
    let path_of = |page: &clap_mangen::Man| args.out.join(page.get_filename());
    if !args.force
        && let Some(existing) = pages.iter().map(path_of).find(|p| p.exists())
    {
        return Err(Error::usage(format!(
            "{} exists: use --force to replace the pages in {}",
            existing.display(),
            args.out.display()
        )));
    }
    std::fs::create_dir_all(&args.out)
        .map_err(|e| Error::io(&args.out, "cannot create the directory", e))?;
    for page in &pages {
        write_page(page, &path_of(page))?;
    }
    eprintln!("{}: {} man pages", args.out.display(), pages.len());
    Ok(Status::Valid)
}

/// The pages of `cmd` and its visible subcommands, depth first.
fn collect(cmd: &clap::Command, pages: &mut Vec<clap_mangen::Man>) {
    pages.push(clap_mangen::Man::new(cmd.clone()));
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        collect(sub, pages);
    }
}

fn write_page(page: &clap_mangen::Man, path: &Path) -> Result<()> {
    let mut text = Vec::new();
    page.render(&mut text)
        .map_err(|e| Error::io(path, "cannot render", e))?;
    std::fs::write(path, text).map_err(|e| Error::io(path, "cannot write", e))
}
