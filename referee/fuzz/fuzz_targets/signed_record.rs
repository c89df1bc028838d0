//! Signed records, which `yam verify`, the desk and the robot read from
//! anyone: any bytes through the reader into the signed-record collector,
//! then the verifier (whole, and as a log cut short) with the built-in
//! rulesets. Never a panic; the collector makes progress. A verified
//! checkpoint never changes the verdict: one made of a prefix of the
//! record's own events replays to the same events, and one that does not
//! match (here, a forged one) leaves a refused record refused and a
//! verified one verified. A record checked from the replay of a prefix
//! of it (how a client checks the record it is about to write) gets the
//! verdict a whole replay gives.

#![no_main]

use libfuzzer_sys::fuzz_target;
use yam_notation::GameResult;
use yam_notation::{ReadError, Reader};
use yam_referee::fair_play::hash::Hash32;
use yam_referee::replay::Builtin;
use yam_referee::signed::collect::Item;
use yam_referee::signed::{
    Checkpoint, Collector, Known, SignedText, replay_text_continuing, replay_text_knowing,
    verify_cut, verify_text,
};

fn checkpoints_change_nothing(text: &SignedText) {
    let plain = replay_text_knowing(text, &Builtin, Known::Nothing);
    let forged = Checkpoint {
        events: u32::MAX,
        head: Hash32::of(b"forged"),
        seal: Hash32::of(b"forged"),
    };
    let with_forged = replay_text_knowing(text, &Builtin, Known::Checkpoint(&forged));
    assert_eq!(plain.is_ok(), with_forged.is_ok());
    let Ok(replay) = plain else { return };
    let events = replay.events();
    for n in [1, events.len() / 2, events.len()] {
        let Some(checkpoint) = Checkpoint::of_events(&events.slice(0..n)) else {
            continue;
        };
        let again = replay_text_knowing(text, &Builtin, Known::Checkpoint(&checkpoint))
            .expect("a checkpoint of the record's own events");
        assert_eq!(again.events(), events);
    }
}

fn continuing_changes_nothing(text: &SignedText) {
    let whole = replay_text_knowing(text, &Builtin, Known::Nothing);
    let ends: Vec<usize> = text
        .items
        .iter()
        .enumerate()
        .filter(|(_, item)| matches!(item, Item::Event { .. }))
        .map(|(i, _)| i + 1)
        .collect();
    for end in [ends.first(), ends.get(ends.len() / 2), ends.last()]
        .into_iter()
        .flatten()
    {
        let mut prefix = text.clone();
        prefix.items.truncate(*end);
        prefix.result = GameResult::Unfinished;
        let Ok(before) = replay_text_knowing(&prefix, &Builtin, Known::Nothing) else {
            continue;
        };
        let continued = replay_text_continuing(text, &Builtin, Known::Nothing, &prefix, &before);
        match (&whole, &continued) {
            (Ok(a), Ok(b)) => assert_eq!(a.events(), b.events()),
            (Err(_), Err(_)) => {}
            _ => panic!(
                "whole {:?} but continued {:?}",
                whole.as_ref().map(|r| r.events().len()),
                continued.as_ref().map(|r| r.events().len())
            ),
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let mut reader = Reader::new(data);
    // Each game consumes at least one byte.
    for _ in 0..=data.len() {
        let mut collector = Collector::new();
        match reader.read_game(&mut collector) {
            Ok(None) => return,
            Ok(Some(text)) => {
                let _ = verify_text(&text, &Builtin);
                let _ = verify_cut(&text, &Builtin);
                checkpoints_change_nothing(&text);
                continuing_changes_nothing(&text);
            }
            Err(ReadError::Syntax(_)) => {
                let partial = collector.take_partial();
                let _ = verify_cut(&partial, &Builtin);
            }
            Err(ReadError::Io(e)) => panic!("reading a slice failed: {e}"),
        }
    }
    panic!("the reader made no progress");
});
