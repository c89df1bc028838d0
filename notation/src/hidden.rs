//! Characters that draw as nothing or reorder the text around them.
//!
//! A name, a comment, a tag value or an address written by someone else
//! may hold them: printed raw, two different names look alike, or a line
//! reads in another order than it holds (a right-to-left override turns
//! `Ann wins` around). Every place Yam prints or keeps such text asks this
//! one predicate, so no list can be shorter than another (three lists that
//! stopped at U+200B..U+200F, the bidi embeddings and isolates,
//! U+2060..U+2064 and U+FEFF let the tag characters and U+061C through:
//! an attacker helper of the forty-second step of issue #22).

/// Whether `c` is one of Unicode's default-ignorable code points or a
/// format character that draws as nothing (soft hyphen, combining grapheme
/// joiner, the Arabic letter mark, Hangul fillers, Khmer inherent vowels,
/// Mongolian variation selectors and vowel separator, zero-width spaces and
/// joiners, left-to-right and right-to-left marks, bidi embeddings,
/// overrides and isolates, word joiner and invisible operators, the
/// deprecated format characters, variation selectors, the byte-order mark,
/// interlinear annotation marks, shorthand and musical format controls,
/// the tag characters and the variation selectors' supplement). Control
/// characters are not asked here: callers treat them on their own (a line
/// break may be kept).
pub fn is_hidden(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{034F}'
            | '\u{061C}'
            | '\u{115F}'
            | '\u{1160}'
            | '\u{17B4}'
            | '\u{17B5}'
            | '\u{180B}'..='\u{180F}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{206F}'
            | '\u{3164}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FEFF}'
            | '\u{FFA0}'
            | '\u{FFF0}'..='\u{FFFB}'
            | '\u{1BCA0}'..='\u{1BCA3}'
            | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0000}'..='\u{E0FFF}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hidden_characters_are_hidden_and_letters_are_not() {
        for c in [
            '\u{AD}',
            '\u{61C}',
            '\u{200B}',
            '\u{200F}',
            '\u{202E}',
            '\u{2066}',
            '\u{2069}',
            '\u{2065}',
            '\u{FE0F}',
            '\u{FEFF}',
            '\u{E0001}',
            '\u{E0041}',
            '\u{E007F}',
        ] {
            assert!(is_hidden(c), "{:?}", c);
        }
        for c in ['a', 'ü', 'σ', '\u{5D9}', '♞', '\n', '\u{FFFD}'] {
            assert!(!is_hidden(c), "{c:?}");
        }
    }
}
