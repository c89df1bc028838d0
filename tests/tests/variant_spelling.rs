//! Every record Yam writes spells each game type one way (`Variant`:
//! a Khan game's type, `Rescue Khan`; a Castle Siege or Genghis Khan
//! ruleset's name in title case, `Standard`), whichever command writes it;
//! and a record an earlier version wrote with another spelling still
//! reads, checks and verifies (the tag is a label, never checked).

use yam_tests::yam;

fn variant(text: &str) -> String {
    text.lines()
        .find_map(|l| l.strip_prefix("[Variant \""))
        .and_then(|l| l.strip_suffix("\"]"))
        .unwrap_or_else(|| panic!("no Variant tag in {text}"))
        .to_owned()
}

#[test]
fn hot_seat_generate_and_engine_import_spell_a_game_type_alike() {
    let dir = tempfile::tempdir().unwrap();
    let seat = dir.path().join("seat.yam");
    yam!()
        .args(["hotseat", "new", "--ruleset", "rescue-khan"])
        .args(["--first", "a", "--second", "b", "--id", "v1", "--out"])
        .arg(&seat)
        .arg("--secrets")
        .arg(dir.path().join("secrets"))
        .assert()
        .success();
    let generated = yam!()
        .args([
            "generate",
            "--game-type",
            "khan",
            "--ruleset",
            "rescue-khan",
        ])
        .args(["--games", "1", "--seed", "3"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let imported = yam!()
        .args(["engine", "import", "--ruleset", "magician"])
        .arg("position fen wfwwa3/wksma3/wn6/aa6/6AA/6NW/3AMSKW/3AWWFW w 0 1 startpos moves g3f3 e7f6")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(
        variant(&std::fs::read_to_string(&seat).unwrap()),
        "Rescue Khan"
    );
    assert_eq!(variant(&String::from_utf8_lossy(&generated)), "Rescue Khan");
    assert_eq!(variant(&String::from_utf8_lossy(&imported)), "Magician");
    let siege = yam!()
        .args([
            "generate",
            "--game-type",
            "castle-siege",
            "--games",
            "1",
            "--seed",
            "3",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(variant(&String::from_utf8_lossy(&siege)), "Standard");
}

#[test]
fn an_earlier_spelling_still_reads() {
    let example = std::fs::read_to_string(
        yam_tests::workspace().join("examples/khan/signed/rescue-khan.yam"),
    )
    .unwrap();
    assert!(example.contains("[Variant \"Rescue Khan\"]"));
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("old.yam");
    std::fs::write(
        &old,
        example.replace("[Variant \"Rescue Khan\"]", "[Variant \"rescue-khan\"]"),
    )
    .unwrap();
    yam!().arg("check").arg(&old).assert().success();
    yam!().arg("verify").arg(&old).assert().success();
}
