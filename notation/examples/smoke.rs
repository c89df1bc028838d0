use yam_notation::*;
fn main() {
    let text = std::fs::read_to_string(std::env::args().nth(1).unwrap()).unwrap();
    match read_all::<RawGrammar, _>(text.as_bytes()) {
        Ok(games) => {
            for g in games {
                match g {
                    Ok(r) => print!("{}", record_to_string::<RawGrammar>(&r)),
                    Err(e) => println!("ERROR {e}"),
                }
            }
        }
        Err(e) => println!("IO {e}"),
    }
}
