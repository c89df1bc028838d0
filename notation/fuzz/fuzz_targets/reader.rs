//! Any bytes: the reader never panics, never loops, and every game it
//! accepts prints canonically and reads back as the same record. A visitor
//! that takes the reader's quick offers (`Visitor::plain_token`,
//! `plain_move_number`) sees the same tokens, numbers and errors as one
//! that declines them.

#![no_main]

use libfuzzer_sys::fuzz_target;
use yam_notation::{
    Dots, PlainToken, RawGrammar, ReadError, Reader, RecordBuilder, Span, TokenError, Visitor,
    parse_record, record_to_string,
};

/// Every token and move number in order, the quick offers taken or not.
struct Tokens {
    quick: bool,
    seen: Vec<String>,
}

impl Visitor for Tokens {
    type Output = ();
    fn move_number(&mut self, number: u32, dots: Dots, _: Span) {
        self.seen.push(format!("{number} {dots:?}"));
    }
    fn token(&mut self, token: &str, _: Span) -> Result<(), TokenError> {
        self.seen.push(token.to_owned());
        Ok(())
    }
    fn plain_token(&mut self, token: PlainToken<'_>) -> bool {
        assert_eq!(
            PlainToken::new(token.text()),
            Some(token),
            "the word is the text"
        );
        if self.quick {
            self.seen.push(token.text().to_owned());
        }
        self.quick
    }
    fn plain_move_number(&mut self, number: u32) -> bool {
        if self.quick {
            self.seen.push(format!("{number} One"));
        }
        self.quick
    }
    fn end_game(&mut self) {}
}

/// What a visitor of [`Tokens`] sees of `data`, with each game's error.
fn tokens(data: &[u8], quick: bool) -> Vec<String> {
    let mut reader = Reader::new(data);
    let mut visitor = Tokens {
        quick,
        seen: Vec::new(),
    };
    for _ in 0..=data.len() {
        match reader.read_game(&mut visitor) {
            Ok(None) => break,
            Ok(Some(())) => visitor.seen.push("game".into()),
            Err(e) => visitor.seen.push(format!("{e:?}")),
        }
    }
    visitor.seen
}

fuzz_target!(|data: &[u8]| {
    assert_eq!(tokens(data, true), tokens(data, false), "quick offers");
    let mut reader = Reader::new(data);
    let mut builder = RecordBuilder::<RawGrammar>::new();
    // Each game consumes at least one byte, so this bound is never reached
    // by a reader that makes progress.
    for _ in 0..=data.len() {
        match reader.read_game(&mut builder) {
            Ok(None) => return,
            Ok(Some(record)) => {
                let printed = record_to_string::<RawGrammar>(&record);
                let again = parse_record::<RawGrammar>(&printed).unwrap_or_else(|e| {
                    panic!("canonical text does not read back: {e}\n{printed}")
                });
                assert_eq!(again, record, "{printed}");
                assert_eq!(record_to_string::<RawGrammar>(&again), printed);
            }
            Err(ReadError::Syntax(_)) => {}
            Err(ReadError::Io(e)) => panic!("reading a slice failed: {e}"),
        }
    }
    panic!("the reader made no progress");
});
