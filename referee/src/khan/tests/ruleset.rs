//! Rulesets: the five standard ones load and say what the rulings say; a bad
//! ruleset is refused with its line and column; options read as the engine
//! protocol writes them.

use super::support::ruleset;
use crate::khan::{
    GameType, Kind, Options, PowerMagicianMoves, Ruleset, Side, Square, ruleset::BUILTIN,
};

#[test]
fn the_five_standard_rulesets_load_by_name_and_by_protocol_name() {
    for game in GameType::ALL {
        let r = ruleset(game.name());
        assert_eq!(r.game, game);
        assert_eq!(r.rules.options, Options::default(), "{game}: defaults");
        assert_eq!(game.standard(), r);
    }
    assert_eq!(
        Ruleset::builtin("powermagician").map(|r| r.game),
        Ok(GameType::PowerMagician)
    );
    assert_eq!(
        Ruleset::builtin("RescueKhan").map(|r| r.game),
        Ok(GameType::RescueKhan)
    );
    let e = Ruleset::builtin("chess").unwrap_err();
    assert!(
        e.to_string()
            .contains("no standard Khan ruleset is called \"chess\""),
        "{e}"
    );
    assert_eq!(BUILTIN.len(), 5);
}

#[test]
fn the_start_positions_are_the_rulings() {
    let magician = ruleset("magician").start_position();
    assert_eq!(
        magician.fen(),
        "wfwwa3/wksma3/wn6/aa6/6AA/6NW/3AMSKW/3AWWFW w 0 1"
    );
    let basic = ruleset("basic").start_position();
    assert_eq!(basic.piece_at(Square::E2), None);
    assert_eq!(basic.piece_at(Square::D7), None);
    let power = ruleset("power-magician").start_position();
    assert_eq!(
        power.piece_at(Square::E2).map(|p| p.kind),
        Some(Kind::PowerMagician)
    );
    assert_eq!(
        power.piece_at(Square::D7).map(|p| p.kind),
        Some(Kind::PowerMagician)
    );
    let general = ruleset("rescue-general").start_position();
    assert_eq!(
        general.to_yam(),
        "wfwwa3/wksma3/wn6/aa6/6AA/6NW/3AMSKW/3AWWFW w 0 1 \
         towers=d4e4d5e5:gen manned=d4e4d5e5 gers=a1:w,h8:b"
    );
    let khan = ruleset("rescue-khan").start_position();
    assert_eq!(
        khan.to_yam(),
        "wfwwa3/w1sha3/wn6/aa6/6AA/6NW/3AHS1W/3AWWFW w 0 1 \
         towers=h5h6h7:wk,a2a3a4:bk manned=a2a3a4h5h6h7 gers=a1:w,h8:b"
    );
    let camps = ruleset("magician").rules.camps;
    assert_eq!(
        camps[Side::White.index()]
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>(),
        ["a7", "b7", "a8", "b8"]
    );
    assert_eq!(
        camps[Side::Black.index()]
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>(),
        ["g1", "h1", "g2", "h2"]
    );
}

const MINIMAL: &str = "name: t\ngame: basic\nstart: wfwwa3/wks1a3/wn6/aa6/6AA/6NW/3A1SKW/3AWWFW w 0 1\ncamps:\n  white: [a7, a8, b7, b8]\n  black: [g1, g2, h1, h2]\n";

#[test]
fn options_default_and_read_as_the_protocol_writes_them() {
    let r = Ruleset::from_yaml(MINIMAL).unwrap();
    assert_eq!(r.rules.options, Options::default());
    let text = format!(
        "{MINIMAL}options:\n  bondsmenLeaders: 0\n  basePromotions:\n  swordsCaptureMounts: 1\n  magicianDemotesKhan: false\n  magicianExtendedDemotionSqs: 2\n  capturePromotions: true\n  exchanges: 1\n  powerMagicianMoves: orthogonal\n"
    );
    let o = Ruleset::from_yaml(&text).unwrap().rules.options;
    assert_eq!(
        o,
        Options {
            bondsmen_leaders: false,
            base_promotions: true,
            swords_capture_mounts: true,
            magician_demotes_khan: false,
            magician_extended_demotion_sqs: 2,
            capture_promotions: true,
            exchanges: true,
            power_magician_moves: PowerMagicianMoves::Orthogonal,
        }
    );
}

fn error_at(yaml: &str) -> (usize, usize, String) {
    let e = Ruleset::from_yaml(yaml).expect_err("a bad ruleset");
    (e.line.unwrap_or(0), e.column.unwrap_or(0), e.to_string())
}

#[test]
fn bad_rulesets_are_refused_with_line_and_column() {
    // An unknown option, on line 8.
    let (l, c, m) = error_at(&format!("{MINIMAL}options:\n  exchange: true\n"));
    assert_eq!((l, c), (8, 3), "{m}");
    assert!(m.contains("unknown field `exchange`"), "{m}");
    // A flag that is neither on nor off.
    let (l, _, m) = error_at(&format!("{MINIMAL}options:\n  exchanges: 2\n"));
    assert_eq!(l, 8, "{m}");
    assert!(m.contains("true, false, 1, 0"), "{m}");
    // A square that is not one.
    let (l, c, m) = error_at(&MINIMAL.replace("[a7, a8", "[a7, z9"));
    assert_eq!((l, c), (5, 15), "{m}");
    assert!(m.contains("\"z9\" is not a square"), "{m}");
    // A bad FEN, reported where it stands.
    let (l, _, m) = error_at(&MINIMAL.replace("3AWWFW w", "3AWWFX w"));
    assert_eq!(l, 3, "{m}");
    assert!(m.contains("bad start FEN"), "{m}");
    // An unknown game type.
    let (l, _, m) = error_at(&MINIMAL.replace("game: basic", "game: chess"));
    assert_eq!(l, 2, "{m}");
    // Broken YAML.
    let (l, _, m) = error_at("name: [unclosed\n");
    assert!(l >= 1, "{m}");
    // A missing field.
    let (_, _, m) = error_at("name: t\ngame: basic\n");
    assert!(m.contains("missing field"), "{m}");
}

#[test]
fn inconsistent_siege_geometry_is_refused_with_a_location() {
    let siege = |towers: &str| {
        format!("{MINIMAL}siege:\n  towers:\n{towers}  gers:\n    white: [a1]\n    black: [h8]\n")
    };
    let (l, c, m) = error_at(&siege("    - squares: [d4, e4]\n      manned: [d5]\n"));
    assert_eq!((l, c), (9, 5), "{m}");
    assert!(
        m.contains("manned square d5 is not one of its tower's squares"),
        "{m}"
    );
    // A warrior standing on a manned square of the start position.
    let (l, c, m) = error_at(&siege("    - squares: [h1]\n      manned: [h1]\n"));
    assert_eq!((l, c), (7, 1), "{m}");
    assert!(m.contains("stands on a manned tower square"), "{m}");
    let (_, _, m) = error_at(&siege(
        "    - squares: [d4]\n      manned: [d4]\n      captive: white-khan\n",
    ));
    assert!(
        m.contains("White has a khan on the board and one in captivity"),
        "{m}"
    );
    let (l, c, m) = error_at(&siege(
        "    - squares: [d4]\n      manned: [d4]\n      captive: queen\n",
    ));
    assert_eq!((l, c), (11, 16), "{m}");
}

#[test]
fn a_ruleset_may_start_with_captives_already_carried() {
    let siege = |carried: &str| {
        format!(
            "{}siege:\n  towers:\n    - {{ squares: [h5, h6, h7], manned: [h6, h7] }}\n  gers: {{ white: [a1], black: [h8] }}\n  carried:\n{carried}",
            MINIMAL
                .replace("wks1a3", "w1s1a3")
                .replace("3A1SKW", "3A1S1W")
        )
    };
    let r = Ruleset::from_yaml(&siege(
        "    - { square: d2, captive: white-khan }\n    - { square: b6, captive: bk }\n",
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        r.start_position().to_yam(),
        "wfwwa3/w1s1a3/wn6/aa6/6AA/6NW/3A1S1W/3AWWFW w 0 1 \
         towers=h5h6h7 manned=h6h7 gers=a1:w,h8:b carried=d2:wk,b6:bk"
    );
    assert_eq!(
        r.start_position().carried_by(Square::D2),
        Some(crate::khan::Captive::Khan(Side::White))
    );
    // Nobody on the square: refused, pointing at the siege section.
    let (l, c, m) = error_at(&siege("    - { square: e4, captive: white-khan }\n"));
    assert_eq!((l, c), (7, 1), "{m}");
    assert!(m.contains("no piece stands there"), "{m}");
    // One captive in two places.
    let (_, _, m) = error_at(&siege(
        "    - { square: d2, captive: white-khan }\n    - { square: d1, captive: white-khan }\n",
    ));
    assert!(m.contains("in two places"), "{m}");
    // A bad square where it stands.
    let (l, c, m) = error_at(&siege("    - { square: e9, captive: white-khan }\n"));
    assert_eq!((l, c), (12, 17), "{m}");
    assert!(m.contains("\"e9\" is not a square"), "{m}");
}
