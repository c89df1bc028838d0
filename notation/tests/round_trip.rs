//! Generated records round-trip through print and parse, and printing is
//! byte-stable; reading in tiny chunks gives the same games as reading at once.

mod common;

use std::io::Read;

use common::{Toy, ToyMove};
use proptest::prelude::*;
use yam_notation::{
    Command, Comment, Dots, GameResult, Nag, Node, Reader, Record, RecordBuilder, Span, Tags,
    parse_record, read_all, record_to_string, write_archive,
};

fn square() -> impl Strategy<Value = (char, char)> {
    (
        prop::sample::select(vec!['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']),
        prop::sample::select(vec!['1', '2', '3', '4', '5', '6', '7', '8']),
    )
}

fn toy_move() -> impl Strategy<Value = ToyMove> {
    prop_oneof![
        (
            prop::option::of(prop::sample::select(vec![
                'K', 'F', 'W', 'A', 'M', 'S', 'N'
            ])),
            square(),
            any::<bool>(),
            square()
        )
            .prop_map(|(piece, from, capture, to)| ToyMove::Step {
                piece,
                from,
                capture,
                to
            }),
        "[ -~]{0,12}|Meat, Milk & Blood|70,000 Horse Archers|Ögedei".prop_map(ToyMove::Pay),
    ]
}

/// Prose words: anything printable but whitespace, including the escapes.
fn word() -> impl Strategy<Value = String> {
    prop_oneof![
        "[!-~]{1,10}",
        "[a-zé€]{1,6}",
        Just("[%".to_owned()),
        Just("}".to_owned()),
        Just("\\".to_owned()),
        Just("1-0".to_owned()),
        "[0-9a-f]{100,130}",
    ]
}

fn comment() -> impl Strategy<Value = Comment> {
    let text = prop::collection::vec(word(), 1..6).prop_map(|w| w.join(" "));
    let command = (
        "[a-z][a-z0-9_]{0,6}",
        prop::collection::vec(
            prop_oneof!["[!-~]{0,8}", "[ -~]{0,8}", "[0-9a-f]{90,128}"],
            0..4,
        ),
    )
        .prop_map(|(name, args)| Command::new(&name, args));
    prop::collection::vec(prop_oneof![text.prop_map(Err), command.prop_map(Ok)], 0..4).prop_map(
        |parts| {
            let mut c = Comment::default();
            for part in parts {
                match part {
                    Err(text) => c.push_text(&text),
                    Ok(cmd) => c.push_command(cmd),
                }
            }
            c
        },
    )
}

#[derive(Debug, Clone)]
enum Item {
    Number(u32, bool),
    Move(ToyMove),
    Nag(u8),
    Comment(Comment),
    Variation(Vec<Item>),
}

fn items() -> impl Strategy<Value = Vec<Item>> {
    let leaf = prop_oneof![
        (1u32..200, any::<bool>()).prop_map(|(n, three)| Item::Number(n, three)),
        toy_move().prop_map(Item::Move),
        toy_move().prop_map(Item::Move),
        any::<u8>().prop_map(Item::Nag),
        comment().prop_map(Item::Comment),
    ];
    let item = leaf.prop_recursive(4, 40, 6, |inner| {
        prop::collection::vec(inner, 0..6).prop_map(Item::Variation)
    });
    prop::collection::vec(item, 0..30)
}

fn flatten(items: Vec<Item>, out: &mut Vec<Node<ToyMove>>) {
    for item in items {
        match item {
            Item::Number(n, three) => out.push(Node::MoveNumber(
                n,
                if three { Dots::Three } else { Dots::One },
            )),
            Item::Move(m) => out.push(Node::Move(m, Span::default())),
            Item::Nag(n) => out.push(Node::Nag(Nag(n))),
            Item::Comment(c) => out.push(Node::Comment(c)),
            Item::Variation(inner) => {
                out.push(Node::StartVariation);
                flatten(inner, out);
                out.push(Node::EndVariation);
            }
        }
    }
}

fn result() -> impl Strategy<Value = GameResult> {
    prop_oneof![
        Just(GameResult::FirstWins),
        Just(GameResult::SecondWins),
        Just(GameResult::Draw),
        Just(GameResult::FirstWinsByForfeit),
        Just(GameResult::SecondWinsByForfeit),
        Just(GameResult::Abandoned),
        Just(GameResult::Unfinished),
        (0u32..1000, 1u32..1000).prop_map(|(points, max)| GameResult::Score { points, max }),
    ]
}

fn record() -> impl Strategy<Value = Record<ToyMove>> {
    (
        "[ -~]{0,20}",
        prop::collection::vec(("X[A-Za-z0-9_]{0,8}", "[^\\n\\r]{0,30}"), 0..4),
        items(),
        result(),
    )
        .prop_map(|(white, extra, items, result)| {
            let mut tags = Tags::new();
            for (name, value) in [
                ("Game", "Khan"),
                ("Variant", "Magician"),
                ("GameId", "prop-1"),
                ("Date", "2026.11.??"),
                ("White", white.as_str()),
                ("Black", "B \"quoted\" \\ name"),
                ("NotationVersion", "1"),
                ("Ruleset", "magician"),
            ] {
                tags.set(name, value);
            }
            for (name, value) in extra {
                if !tags.contains(&name) {
                    tags.set(&name, value);
                }
            }
            let mut record = Record::new(tags);
            record.set_result(result);
            flatten(items, &mut record.movetext);
            record
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn print_parse_gives_the_same_record(record in record()) {
        let printed = record_to_string::<Toy>(&record);
        let parsed = parse_record::<Toy>(&printed).map_err(|e| TestCaseError::fail(format!("{e}\n{printed}")))?;
        prop_assert_eq!(&parsed, &record, "{}", printed);
        let reprinted = record_to_string::<Toy>(&parsed);
        prop_assert_eq!(&reprinted, &printed);
        for line in printed.lines() {
            prop_assert!(line.chars().count() <= 80 || !line.trim().contains(' ') || line.starts_with('[')
                || line.split(' ').filter(|u| u.chars().count() > 80).count() > 0,
                "line too long without a long unit: {:?}", line);
        }
    }

    #[test]
    fn archives_read_the_same_in_any_chunk_size(records in prop::collection::vec(record(), 1..4), chunk in 1usize..64) {
        let mut text = String::new();
        write_archive::<Toy>(&records, &mut text);
        let whole = read_all::<Toy, _>(text.as_bytes()).unwrap();
        let chunked = read_all::<Toy, _>(Chunked { data: text.as_bytes(), chunk }).unwrap();
        prop_assert_eq!(whole.len(), records.len());
        for ((a, b), original) in whole.iter().zip(&chunked).zip(&records) {
            prop_assert_eq!(a.as_ref().unwrap(), original);
            prop_assert_eq!(b.as_ref().unwrap(), original);
        }
    }

    #[test]
    fn the_reader_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let mut reader = Reader::new(&bytes[..]);
        let mut builder = RecordBuilder::<Toy>::new();
        for _ in 0..100 {
            if let Ok(None) = reader.read_game(&mut builder) {
                break;
            }
        }
    }
}

/// A reader that hands out at most `chunk` bytes per read, to exercise the
/// buffer refills at every possible boundary.
struct Chunked<'a> {
    data: &'a [u8],
    chunk: usize,
}

impl Read for Chunked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.chunk.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

#[test]
fn a_long_comment_grows_the_buffer_and_a_huge_one_is_refused() {
    let long = "word ".repeat(40_000);
    let text = format!(
        "{}1. Wg4-f5 {{{long}}} *\n\n{}1. a5-a4 *\n",
        common::header("a", "*"),
        common::header("b", "*")
    );
    let games = read_all::<Toy, _>(Chunked {
        data: text.as_bytes(),
        chunk: 1000,
    })
    .unwrap();
    assert!(games.iter().all(Result::is_ok));

    let mut reader = Reader::new(text.as_bytes()).with_max_element(1 << 16);
    let mut builder = RecordBuilder::<Toy>::new();
    let err = reader.read_game(&mut builder).unwrap_err();
    assert!(
        matches!(
            err.syntax().unwrap().kind,
            yam_notation::ErrorKind::TooLong(_)
        ),
        "{err}"
    );
    let next = reader.read_game(&mut builder).unwrap().unwrap();
    assert_eq!(next.tags.get("GameId"), Some("b"));
}

#[test]
fn deep_variations_nest_without_recursion() {
    // The reader's own code nests to any depth; the limit is a setting.
    let depth = 100_000;
    let text = format!(
        "{}1. Wg4-f5 {}a5-a4{} *\n",
        common::header("deep", "*"),
        "(".repeat(depth),
        ")".repeat(depth)
    );
    let mut reader = Reader::new(text.as_bytes()).with_max_depth(depth as u32);
    let record = reader
        .read_game(&mut RecordBuilder::<Toy>::new())
        .unwrap()
        .unwrap();
    assert_eq!(record.movetext.len(), 3 + 2 * depth);
    let printed = record_to_string::<Toy>(&record);
    let mut reader = Reader::new(printed.as_bytes()).with_max_depth(depth as u32);
    let again = reader
        .read_game(&mut RecordBuilder::<Toy>::new())
        .unwrap()
        .unwrap();
    assert_eq!(again, record);
}

#[test]
fn variations_nest_up_to_the_limit_and_no_deeper() {
    let limit = yam_notation::reader::DEFAULT_MAX_DEPTH as usize;
    let nested = |depth: usize| {
        format!(
            "{}1. Wg4-f5 {}a5-a4{} *\n",
            common::header("deep", "*"),
            "(".repeat(depth),
            ")".repeat(depth)
        )
    };
    let record = parse_record::<Toy>(&nested(limit)).unwrap();
    assert_eq!(record.movetext.len(), 3 + 2 * limit);
    // One more: the game fails at the `(` that opens it, with the limit
    // named, and the next game is read.
    let text = format!("{}\n{}", nested(limit + 1), nested(1));
    let games = read_all::<Toy, _>(text.as_bytes()).unwrap();
    assert_eq!(games.len(), 2);
    let err = games[0].as_ref().unwrap_err();
    assert_eq!(
        err.kind,
        yam_notation::ErrorKind::TooDeep(limit as u32),
        "{err}"
    );
    let header_lines = common::header("deep", "*").lines().count() as u32;
    assert_eq!(err.pos.line, header_lines + 1);
    assert_eq!(err.pos.column, 11 + limit as u32);
    assert!(err.to_string().contains(&format!("more than {limit} deep")));
    assert!(games[1].is_ok());
}
