//! One game's page: header, status, the diagram (drawn by the script from
//! the page's frame data, for every main-line ply and every drawn
//! variation move), and the move list with comments, NAGs and variations.

use std::fmt::Write as _;

use yam_notation::{CommentPart, Dots, Node, Record};

use super::frames::Encoded;
use super::status::{Status, Vouched};
use super::{Entry, escape, head};
use crate::pictures::positions::Tree;

/// Commands that are machine evidence, kept off the page (their count is
/// given instead): signatures mean nothing to a reader.
const EVIDENCE: &str = "event";

pub(crate) fn game_page(
    entry: &Entry,
    diagrams_of: Option<(&Tree, &Encoded)>,
    prev: Option<&Entry>,
    next: Option<&Entry>,
) -> String {
    let title = entry.title();
    let mut html = head(&title, "../");
    html.push_str(
        "<body class=\"game\">\n<nav class=\"top\"><a href=\"../index.html\">All games</a>",
    );
    if let Some(p) = prev {
        let _ = write!(
            html,
            " · <a href=\"{}\" rel=\"prev\">previous: <bdi>{}</bdi></a>",
            escape(&p.file_name),
            escape(&p.title())
        );
    }
    if let Some(n) = next {
        let _ = write!(
            html,
            " · <a href=\"{}\" rel=\"next\">next: <bdi>{}</bdi></a>",
            escape(&n.file_name),
            escape(&n.title())
        );
    }
    html.push_str("</nav>\n<main>\n");
    let _ = writeln!(html, "<h1>{}</h1>", escape(&title));
    let players = entry.players();
    if !players.is_empty() {
        let names: Vec<String> = players
            .iter()
            .map(|(side, name)| format!("<bdi>{}</bdi> ({})", escape(name), escape(side)))
            .collect();
        let _ = writeln!(html, "<p class=\"players\">{}</p>", names.join(" vs "));
    }
    let _ = writeln!(
        html,
        "<p class=\"status {}\" id=\"status\">{}</p>",
        entry.status.class(),
        escape(&entry.status.long())
    );
    if let Status::Verified(vouched) = &entry.status {
        signers(&mut html, vouched);
    }
    let Some(record) = &entry.record else {
        let _ = writeln!(
            html,
            "<p>Game {} of <code>{}</code> could not be read, so there is nothing more to show. \
             <code>yam check</code> points at the error.</p>",
            entry.index,
            escape(&entry.archive)
        );
        html.push_str("</main>\n</body>\n</html>\n");
        return html;
    };
    tags_table(&mut html, entry, record);
    html.push_str("<div class=\"board-and-moves\">\n");
    if let Some((tree, encoded)) = diagrams_of {
        diagrams(&mut html, tree, encoded, record);
    }
    moves(&mut html, record, diagrams_of.map(|(tree, _)| tree));
    html.push_str("</div>\n</main>\n</body>\n</html>\n");
    html
}

/// Who signed a verified game, by key, as `yam verify` names them, and
/// what no signature covers: the reader tells who played by the keys, not
/// by the names above, which anyone could have edited.
fn signers(html: &mut String, vouched: &Vouched) {
    let mut keys: Vec<String> = vouched
        .seats
        .iter()
        .map(|(role, fp)| format!("{} <code>{}</code>", escape(role), escape(fp)))
        .collect();
    if let Some(referee) = &vouched.referee {
        keys.push(format!("referee <code>{}</code>", escape(referee)));
    }
    let _ = writeln!(
        html,
        "<p class=\"signers\">Signed by the keys: {}. The players' names, the event, \
         the date, the variant's name and the other tags are labels no signature \
         covers.</p>",
        keys.join(", ")
    );
}

fn tags_table(html: &mut String, entry: &Entry, record: &Record<String>) {
    html.push_str("<table class=\"tags\">\n");
    for name in [
        "Game", "Variant", "Event", "Site", "Date", "Round", "Result",
    ] {
        if let Some(v) = record.tags.get(name) {
            let _ = writeln!(
                html,
                "<tr><th>{}</th><td>{}</td></tr>",
                escape(name),
                escape(v)
            );
        }
    }
    if let Some(score) = &entry.score {
        let _ = writeln!(
            html,
            "<tr><th>Score</th><td>{} (the referee's count)</td></tr>",
            escape(score)
        );
    }
    let _ = writeln!(
        html,
        "<tr><th>Archive</th><td><code>{}</code>, game {}</td></tr>",
        escape(&entry.archive),
        entry.index
    );
    html.push_str("</table>\n<details class=\"all-tags\"><summary>All tags</summary>\n<table class=\"tags\">\n");
    for (name, value) in record.tags.iter() {
        let _ = writeln!(
            html,
            "<tr><th>{}</th><td>{}</td></tr>",
            escape(name),
            escape(value)
        );
    }
    html.push_str("</table>\n</details>\n");
}

/// The diagram: one figure the script draws each frame into, from the
/// frame data (see [`super::frames`]) and the line chunks it names.
/// Without the script the page says so; the moves are all there.
fn diagrams(html: &mut String, tree: &Tree, encoded: &Encoded, record: &Record<String>) {
    let plies = record.main_line().count();
    let last = tree.main_frames.saturating_sub(1);
    html.push_str("<section class=\"board\" aria-label=\"Diagram\">\n");
    let _ = writeln!(
        html,
        "<div class=\"controls\" id=\"controls\" hidden>\n\
         <button type=\"button\" data-go=\"first\" title=\"Start (Home)\">«</button>\n\
         <button type=\"button\" data-go=\"prev\" title=\"Back one ply (←)\">◀</button>\n\
         <button type=\"button\" data-go=\"next\" title=\"Forward one ply (→)\">▶</button>\n\
         <button type=\"button\" data-go=\"last\" title=\"End of this line (End)\">»</button>\n\
         <button type=\"button\" data-go=\"main\" title=\"Back to the main line (↑)\" hidden>main line</button>\n\
         <span id=\"where\" aria-live=\"polite\"></span>\n</div>\n\
         <p class=\"hint\">Keys: ← → step, Home and End jump, ↑ leaves a variation; or click a move.</p>"
    );
    let _ = writeln!(
        html,
        "<div id=\"diagrams\" data-plies=\"{last}\">\n<figure class=\"pos\" id=\"picture\"></figure>\n\
         <noscript><p>The diagrams are drawn by the page's script, which is off: the moves and \
         comments are all below, and <code>yam show --svg</code> draws any position.</p></noscript>\n</div>"
    );
    let _ = writeln!(
        html,
        "<script type=\"application/json\" id=\"frame-data\">{}</script>",
        encoded.json
    );
    for k in &encoded.chunks {
        let _ = writeln!(html, "<script src=\"../lines/{k}.js\"></script>");
    }
    if let Some(error) = &tree.error {
        let _ = writeln!(
            html,
            "<p class=\"replay-stop\">The diagrams stop after {last} of {plies} plies: {}</p>",
            escape(error)
        );
    }
    if tree.variations_cut {
        let _ = writeln!(
            html,
            "<p class=\"hint\">This game's variations reach more than {} positions: the \
             variation moves after those are listed without diagrams; <code>yam check</code> \
             holds them to the rules.</p>",
            crate::pictures::positions::VARIATION_DRAWING
        );
    } else if tree.moves.iter().skip(plies).any(Option::is_none)
        && record.game() != Some(yam_notation::GameKind::Khan)
    {
        html.push_str(
            "<p class=\"hint\">Some of this game's variation moves are listed without diagrams \
             (Genghis Khan variations are not drawn; a variation move that does not replay has \
             none); <code>yam check</code> holds them to the rules.</p>\n",
        );
    }
    html.push_str("</section>\n");
}

/// The glyph or words for the common NAGs.
fn nag_words(n: u8) -> Option<&'static str> {
    Some(match n {
        1 => "good move",
        2 => "mistake",
        3 => "brilliant move",
        4 => "blunder",
        5 => "speculative move",
        6 => "dubious move",
        10 => "equal position",
        13 => "unclear position",
        14 => "slight advantage to the first side",
        15 => "slight advantage to the second side",
        16 => "clear advantage to the first side",
        17 => "clear advantage to the second side",
        18 => "decisive advantage to the first side",
        19 => "decisive advantage to the second side",
        _ => return None,
    })
}

fn moves(html: &mut String, record: &Record<String>, tree: Option<&Tree>) {
    let mut frames = tree.map(|t| t.moves.iter().copied());
    html.push_str(
        "<section class=\"moves\" aria-label=\"Moves\">\n<h2>Moves</h2>\n<div id=\"movetext\">\n",
    );
    if tree.is_some_and(|t| t.main_frames > 0) {
        html.push_str(
            "<a class=\"mv start\" href=\"#ply=0\" data-ply=\"0\" data-frame=\"0\">start</a>\n",
        );
    }
    let mut depth = 0usize;
    let mut ply = 0usize;
    let mut evidence = 0usize;
    for node in &record.movetext {
        match node {
            Node::MoveNumber(n, dots) => {
                let dots = match dots {
                    Dots::One => ".",
                    Dots::Three => "...",
                };
                let _ = write!(html, "<span class=\"num\">{n}{dots}</span> ");
            }
            Node::Move(m, _) if depth == 0 => {
                ply += 1;
                let frame = frames.as_mut().and_then(|f| f.next().flatten());
                match frame {
                    Some(frame) => {
                        let _ = write!(
                            html,
                            "<a class=\"mv\" href=\"#ply={ply}\" data-ply=\"{ply}\" data-frame=\"{frame}\">{}</a> ",
                            escape(m)
                        );
                    }
                    None => {
                        let _ = write!(html, "<span class=\"mv\">{}</span> ", escape(m));
                    }
                }
            }
            Node::Move(m, _) => match frames.as_mut().and_then(|f| f.next().flatten()) {
                Some(frame) => {
                    let _ = write!(
                        html,
                        "<a class=\"mv alt\" href=\"#frame={frame}\" data-frame=\"{frame}\">{}</a> ",
                        escape(m)
                    );
                }
                None => {
                    let _ = write!(html, "<span class=\"mv alt\">{}</span> ", escape(m));
                }
            },
            Node::Nag(nag) => {
                let text = nag
                    .glyph()
                    .map_or_else(|| format!("${}", nag.0), str::to_owned);
                let title = nag_words(nag.0).map_or_else(
                    || format!("annotation ${}", nag.0),
                    |w| format!("${}: {w}", nag.0),
                );
                let _ = write!(
                    html,
                    "<span class=\"nag\" title=\"{}\">{}</span> ",
                    escape(&title),
                    escape(&text)
                );
            }
            Node::Comment(comment) => {
                let mut parts = String::new();
                for part in &comment.parts {
                    match part {
                        CommentPart::Text(t) => {
                            let t = t.trim();
                            if !t.is_empty() {
                                let _ =
                                    write!(parts, "<span class=\"prose\">{}</span> ", escape(t));
                            }
                        }
                        CommentPart::Command(cmd) if cmd.name == EVIDENCE => evidence += 1,
                        CommentPart::Command(cmd) => {
                            let _ = write!(
                                parts,
                                "<details class=\"cmd\"><summary>%{} ({} item{})</summary><ul>",
                                escape(&cmd.name),
                                cmd.args.len(),
                                if cmd.args.len() == 1 { "" } else { "s" }
                            );
                            for arg in &cmd.args {
                                let _ = write!(parts, "<li>{}</li>", escape(arg));
                            }
                            parts.push_str("</ul></details> ");
                        }
                    }
                }
                if !parts.is_empty() {
                    let _ = write!(html, "<span class=\"comment\">{parts}</span> ");
                }
            }
            Node::StartVariation => {
                depth += 1;
                html.push_str("<span class=\"var\">( ");
            }
            Node::EndVariation => {
                if depth > 0 {
                    depth -= 1;
                    html.push_str(")</span> ");
                }
            }
        }
    }
    // A record's variations are balanced; should one not be, the page still is.
    for _ in 0..depth {
        html.push_str(")</span>");
    }
    let _ = writeln!(
        html,
        "<span class=\"result\">{}</span>\n</div>",
        escape(&record.result.to_string())
    );
    if evidence > 0 {
        let _ = writeln!(
            html,
            "<p class=\"evidence\">{evidence} signed event{} (machine evidence) are left out of \
             this page; the status above is what verifying them found.</p>",
            if evidence == 1 { "" } else { "s" }
        );
    }
    html.push_str("</section>\n");
}
