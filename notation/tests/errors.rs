//! Every malformed construct gets an error at the right line and column, and
//! the reader goes on with the next game of the archive.

mod common;

use common::{Toy, header};
use yam_notation::{ErrorKind, ParseError, Record, read_all};

/// Read an archive of a bad game between two good ones; return the error.
fn bad_between_good(bad: &str) -> Box<ParseError> {
    let text = format!(
        "{}1. Wg4-f5 1-0\n\n{bad}\n\n{}1. a5-a4 *\n",
        header("first", "1-0"),
        header("last", "*")
    );
    let games = read_all::<Toy, _>(text.as_bytes()).unwrap();
    assert_eq!(games.len(), 3, "{games:#?}");
    let first: &Record<_> = games[0].as_ref().expect("the first game is good");
    assert_eq!(first.tags.get("GameId"), Some("first"));
    let last = games[2]
        .as_ref()
        .expect("the game after the bad one is read normally");
    assert_eq!(last.tags.get("GameId"), Some("last"));
    let err = games[1]
        .as_ref()
        .expect_err("the middle game is bad")
        .clone();
    assert_eq!(err.game, 2);
    err
}

/// The line the bad game starts on in `bad_between_good`.
const BAD_GAME_LINE: u32 = 13;

fn assert_at(err: &ParseError, line_in_bad: u32, column: u32) {
    assert_eq!(
        (err.pos.line, err.pos.column),
        (BAD_GAME_LINE + line_in_bad - 1, column),
        "{err}"
    );
}

#[test]
fn unterminated_comment() {
    let bad = format!("{}1. Wg4-f5 {{never closed\n2. a5-a4", header("bad", "*"));
    let err = bad_between_good(&bad);
    assert_eq!(err.kind, ErrorKind::UnterminatedComment);
    assert_at(&err, 11, 11);
}

#[test]
fn unterminated_variation() {
    let bad = format!("{}1. Wg4-f5 (1. Wg4-g5 a5-a4\n", header("bad", "*"));
    let err = bad_between_good(&bad);
    assert_eq!(err.kind, ErrorKind::UnterminatedVariation);
}

#[test]
fn stray_closing_parenthesis() {
    let bad = format!("{}1. Wg4-f5 ) *", header("bad", "*"));
    let err = bad_between_good(&bad);
    assert_eq!(err.kind, ErrorKind::UnopenedVariation);
    assert_at(&err, 11, 11);
}

#[test]
fn tag_without_value() {
    let bad = header("bad", "*").replace("[Variant \"Magician\"]", "[Variant]");
    let err = bad_between_good(&bad);
    assert!(
        matches!(&err.kind, ErrorKind::Expected(e) if e.contains("quoted tag value")),
        "{err}"
    );
    assert_at(&err, 2, 9);
    assert_eq!(err.found, "]");
}

#[test]
fn bad_escape_in_tag() {
    let bad = header("bad", "*").replace("\"Ann\"", "\"A\\nn\"");
    let err = bad_between_good(&bad);
    assert!(matches!(err.kind, ErrorKind::BadEscape(_)), "{err}");
    assert_at(&err, 5, 10);
}

#[test]
fn bad_escape_in_comment() {
    let bad = format!("{}1. Wg4-f5 {{C:\\games}} *", header("bad", "*"));
    let err = bad_between_good(&bad);
    assert!(matches!(err.kind, ErrorKind::BadEscape(_)), "{err}");
    assert_at(&err, 11, 14);
}

#[test]
fn missing_result() {
    let bad = format!("{}1. Wg4-f5 a5-a4", header("bad", "*"));
    let err = bad_between_good(&bad);
    assert_eq!(err.kind, ErrorKind::MissingResult);
}

#[test]
fn result_inside_a_variation() {
    let bad = format!("{}1. Wg4-f5 (a5-a4 1-0) *", header("bad", "*"));
    let err = bad_between_good(&bad);
    assert!(matches!(err.kind, ErrorKind::StrayResult(_)), "{err}");
    assert_at(&err, 11, 18);
}

#[test]
fn text_after_the_result() {
    let bad = format!("{}1. Wg4-f5 * a5-a4", header("bad", "*"));
    let err = bad_between_good(&bad);
    assert!(matches!(err.kind, ErrorKind::StrayResult(_)), "{err}");
    assert_at(&err, 11, 13);
    assert_eq!(err.found, "a5-a4");
}

#[test]
fn result_tag_disagrees() {
    let bad = format!("{}1. Wg4-f5 0-1", header("bad", "1-0"));
    let err = bad_between_good(&bad);
    assert_eq!(
        err.kind,
        ErrorKind::ResultMismatch {
            tag: "1-0".into(),
            movetext: "0-1".into()
        }
    );
}

#[test]
fn move_token_refused_by_the_grammar() {
    let bad = format!("{}1. Wg4-f9 *", header("bad", "*"));
    let err = bad_between_good(&bad);
    assert!(
        matches!(&err.kind, ErrorKind::BadMove(e) if e.contains("toy move")),
        "{err}"
    );
    assert_at(&err, 11, 9);
    assert_eq!(err.found, "Wg4-f9");
}

#[test]
fn missing_required_tags() {
    let bad = header("bad", "*").replace("[GameId \"bad\"]\n", "");
    let err = bad_between_good(&format!("{bad}1. Wg4-f5 *"));
    assert_eq!(err.kind, ErrorKind::MissingTags(vec!["GameId"]));
}

#[test]
fn unknown_game_and_duplicate_tag() {
    let bad = header("bad", "*").replace("\"Khan\"", "\"Chess\"");
    let err = bad_between_good(&format!("{bad}1. Wg4-f5 *"));
    assert_eq!(err.kind, ErrorKind::UnknownGame("Chess".into()));
    let bad = header("bad", "*").replace("[Black \"Bo\"]", "[Black \"Bo\"]\n[white \"Cy\"]");
    let err = bad_between_good(&format!("{bad}1. Wg4-f5 *"));
    assert_eq!(err.kind, ErrorKind::DuplicateTag("White".into()));
}

#[test]
fn a_game_of_many_tags_is_read_in_one_pass_and_a_late_duplicate_is_found() {
    // 200,000 tag pairs of other programs (some with a two-byte character or
    // an escape, which the reader takes by another road). Each name was
    // once compared with every one before it: 160,000 took 3.3 s to check
    // and 23 s to show.
    let many: String = (0..200_000)
        .map(|i| match i % 3 {
            0 => format!("[Extra{i} \"v\"]\n"),
            1 => format!("[Extra{i} \"é\"]\n"),
            _ => format!("[Extra{i} \"a \\\"b\\\"\"]\n"),
        })
        .collect();
    let game = |extra: &str| header("many", "*").replacen("\n\n", &format!("\n{many}{extra}\n"), 1);
    let games = read_all::<Toy, _>(format!("{}1. Wg4-f5 *\n", game("")).as_bytes()).unwrap();
    let record = games[0].as_ref().expect("a game of many tags is good");
    assert_eq!(record.tags.get("Extra199997"), Some("a \"b\""));
    assert_eq!(record.tags.get("extra100000"), Some("é"));
    let names: Vec<&str> = record.tags.iter().map(|(n, _)| n).collect();
    assert_eq!(names.len(), 200_009);
    assert_eq!(names[..2], ["Game", "Variant"]);
    assert_eq!(names[9], "Extra0");
    assert_eq!(names[200_008], "Extra199999");
    // The same name again, spelled in another case, after all of them.
    for (extra, name) in [
        ("[EXTRA150000 \"w\"]\n", "EXTRA150000"),
        ("[extra3 \"é\"]\n", "extra3"),
    ] {
        let err = bad_between_good(&format!("{}1. Wg4-f5 *", game(extra)));
        assert_eq!(err.kind, ErrorKind::DuplicateTag(name.into()));
        assert_eq!(err.pos.line, BAD_GAME_LINE + 200_009);
    }
}

#[test]
fn a_game_longer_than_the_limit_fails_and_the_next_is_read() {
    // 200,000 tag pairs (about 3.6 MB) against a limit of 1 MiB: the game
    // fails soon past the limit, naming it, and what a visitor was given
    // stays near the limit (whoever keeps a game whole holds several
    // times its text); the rest is skipped and the next game is read.
    let many: String = (0..200_000)
        .map(|i| format!("[Extra{i} \"v\"]\n"))
        .collect();
    let text = format!(
        "{}{}1. Wg4-f5 *\n\n{}1. a5-a4 *\n",
        header("long", "*").replacen("\n\n", &format!("\n{many}\n"), 1),
        "",
        header("next", "*")
    );
    let mut reader = yam_notation::Reader::new(text.as_bytes()).with_max_game(1 << 20);
    let mut builder = yam_notation::RecordBuilder::<yam_notation::RawGrammar>::new();
    let err = match reader.read_game(&mut builder) {
        Err(yam_notation::ReadError::Syntax(e)) => e,
        other => panic!("the long game fails: {other:?}"),
    };
    assert_eq!(err.kind, ErrorKind::GameTooLong(1 << 20));
    assert!(err.to_string().contains("game longer than 1 MiB"), "{err}");
    let at = usize::try_from(err.pos.offset).unwrap();
    assert!((1 << 20) < at && at <= (1 << 20) + (1 << 17), "{at}");
    // Reading resumes at the next tag line, as after any fault: the rest of
    // this header reads as games of their own, each failing the same way
    // within the limit, until the next game.
    let next = loop {
        match reader.read_game(&mut builder) {
            Err(yam_notation::ReadError::Syntax(e)) => {
                assert_eq!(e.kind, ErrorKind::GameTooLong(1 << 20));
                let len = e.pos.offset - e.game_start.offset;
                assert!((1 << 20) < len && len <= (1 << 20) + (1 << 17), "{len}");
            }
            Ok(Some(game)) => break game,
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(next.tags.get("GameId"), Some("next"));
    assert!(reader.games_read() <= 6, "{}", reader.games_read());
    // The default limit, 16 MiB, is far above any played game.
    assert_eq!(yam_notation::reader::DEFAULT_MAX_GAME, 16 << 20);
}

#[test]
fn invalid_utf8() {
    let mut text = header("bad", "*").into_bytes();
    text.extend_from_slice(b"1. Wg4-f5 {caf\xe9} *\n\n");
    text.extend_from_slice(header("last", "*").as_bytes());
    text.extend_from_slice(b"1. a5-a4 *\n");
    let games = read_all::<Toy, _>(&text[..]).unwrap();
    let err = games[0].as_ref().unwrap_err();
    assert_eq!(err.kind, ErrorKind::InvalidUtf8);
    assert_eq!((err.pos.line, err.pos.column), (11, 15));
    assert!(games[1].is_ok());
}

#[test]
fn truncated_file() {
    for cut in [
        "1. Wg4-f5 {half a comm",
        "1. Wg4-f5 (1. a5",
        "1. Wg4-f5 pay:\"Meat, Mi",
        "1. Wg4",
    ] {
        let text = format!("{}{cut}", header("bad", "*"));
        let games = read_all::<Toy, _>(text.as_bytes()).unwrap();
        assert_eq!(games.len(), 1);
        assert!(games[0].is_err(), "{cut}");
    }
    let text = header("bad", "*");
    let cut = &text[..40];
    let games = read_all::<Toy, _>(cut.as_bytes()).unwrap();
    assert!(
        games[0].as_ref().is_err_and(|e| e.pos.line == 3),
        "{games:?}"
    );
}

#[test]
fn tag_line_inside_a_comment_starts_the_next_game() {
    let text = format!(
        "{}1. Wg4-f5 {{oops\n\n{}1. a5-a4 *\n",
        header("bad", "*"),
        header("next", "*")
    );
    let games = read_all::<Toy, _>(text.as_bytes()).unwrap();
    assert_eq!(games.len(), 2);
    assert_eq!(
        games[0].as_ref().unwrap_err().kind,
        ErrorKind::UnterminatedComment
    );
    assert_eq!(games[1].as_ref().unwrap().tags.get("GameId"), Some("next"));
}

#[test]
fn bom_and_crlf_are_read() {
    let text = format!(
        "\u{feff}{}1. Wg4-f5 {{a\ncomment}} *\n",
        header("crlf", "*")
    )
    .replace('\n', "\r\n");
    let games = read_all::<Toy, _>(text.as_bytes()).unwrap();
    let record = games[0].as_ref().unwrap();
    assert_eq!(record.tags.get("GameId"), Some("crlf"));
    assert_eq!(record.main_line().count(), 1);
}

#[test]
fn a_lone_carriage_return_is_refused_where_it_stands() {
    // Between moves, after the result, and a whole old-Macintosh file
    // (CR only), which is refused at its first line's end.
    let bad = format!("{}1. Wg4-f5\ra5-a4 *", header("bad", "*"));
    let err = bad_between_good(&bad);
    assert_eq!(err.kind, ErrorKind::LoneCarriageReturn, "{err}");
    assert_at(&err, 11, 10);
    let err = bad_between_good(&format!("{}1. Wg4-f5 *\r ", header("bad", "*")));
    assert_eq!(err.kind, ErrorKind::LoneCarriageReturn, "{err}");
    let mac = format!("{}1. Wg4-f5 *\n", header("mac", "*")).replace('\n', "\r");
    let games = read_all::<Toy, _>(mac.as_bytes()).unwrap();
    let err = games[0].as_ref().unwrap_err();
    assert_eq!(err.kind, ErrorKind::LoneCarriageReturn, "{err}");
    assert_eq!((err.pos.line, err.pos.column), (1, 14), "{err}");
    assert!(err.to_string().contains("lines end in LF or CRLF"), "{err}");
    // Inside a comment too, where it stands; a CRLF there is a line end.
    let err = bad_between_good(&format!(
        "{}1. Wg4-f5 {{one\r\ntwo\rthree}} *",
        header("bad", "*")
    ));
    assert_eq!(err.kind, ErrorKind::LoneCarriageReturn, "{err}");
    assert_at(&err, 12, 4);
    let good = format!("{}1. Wg4-f5 {{one\r\ntwo}} *", header("ok", "*"));
    assert!(read_all::<Toy, _>(good.as_bytes()).unwrap()[0].is_ok());
}

#[test]
fn lenient_reading() {
    let text = "[game \"KHAN\"]   [ variant  \"Magician\" ]\n[GameId \"x\"][Date \"2026-11-29\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"*\"]\n[NotationVersion \"1\"]\n[Ruleset \"magician\"]\n1.Wg4-f5!a5-a4\t\t2...Wf5-f6 *";
    let games = read_all::<Toy, _>(text.as_bytes()).unwrap();
    let record = games[0].as_ref().unwrap();
    assert_eq!(record.tags.get("Game"), Some("Khan"));
    assert_eq!(record.tags.get("Date"), Some("2026.11.29"));
    assert_eq!(record.main_line().count(), 3);
}

#[test]
fn columns_count_characters_not_bytes() {
    // "{café €}" is 8 characters but 11 bytes; the bad move starts at
    // character 20 of its line, and the grammar gives up at its 6th
    // character, the 9.
    let bad = format!("{}1. Wg4-f5 {{café €}} Wg4-f9 *", header("bad", "*"));
    let err = bad_between_good(&bad);
    assert!(matches!(err.kind, ErrorKind::BadMove(_)), "{err}");
    assert_at(&err, 11, 25);
}

/// Counts the moves it is shown, and refuses one token: the second view
/// `Both` feeds alongside a record builder.
#[derive(Default)]
struct Counter {
    moves: usize,
    refuse: Option<&'static str>,
}

impl yam_notation::Visitor for Counter {
    type Output = usize;
    fn begin_game(&mut self) {
        self.moves = 0;
    }
    fn token(
        &mut self,
        token: &str,
        _: yam_notation::Span,
    ) -> Result<(), yam_notation::TokenError> {
        if Some(token) == self.refuse {
            return Err(yam_notation::TokenError {
                offset: 0,
                expected: "a move this visitor takes".into(),
            });
        }
        self.moves += 1;
        Ok(())
    }
    fn end_game(&mut self) -> usize {
        self.moves
    }
}

#[test]
fn both_visitors_see_one_reading_and_either_can_refuse_the_game() {
    use yam_notation::{Both, Reader, RecordBuilder};
    let text = format!(
        "{}1. Wg4-f5 a5-a4 (1... b5-b4) 2. Wf5-f6 *\n",
        header("two", "*")
    );
    let mut both = Both(RecordBuilder::<Toy>::new(), Counter::default());
    let (record, moves) = Reader::new(text.as_bytes())
        .read_game(&mut both)
        .unwrap()
        .unwrap();
    assert_eq!(record.main_line().count(), 3);
    assert_eq!(moves, 4, "the variation's move too");
    // The second view refusing a token fails the game for both, where the
    // token stands.
    let mut both = Both(
        RecordBuilder::<Toy>::new(),
        Counter {
            moves: 0,
            refuse: Some("a5-a4"),
        },
    );
    let err = match Reader::new(text.as_bytes()).read_game(&mut both) {
        Err(yam_notation::ReadError::Syntax(e)) => e,
        other => panic!("expected a syntax error, got {other:?}"),
    };
    assert_eq!(err.pos.line, 11, "{err}");
    assert!(
        err.to_string().contains("a move this visitor takes"),
        "{err}"
    );
}
