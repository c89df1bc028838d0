//! The streaming archive reader.
//!
//! It reads game after game from any [`Read`], hands events to a
//! [`Visitor`], and never allocates per element: everything it hands out is
//! borrowed from one buffer that it refills and, only for an element larger
//! than the buffer, grows (up to a limit). A malformed game yields a
//! [`ParseError`] naming the game and the position; the reader then skips to
//! the next game, which it reads normally.

use std::io::{self, Read};

use nom::Err;

use crate::comment::{self, RawParts};
use crate::error::{ErrorKind, ParseError, ReadError};
use crate::genghis_khan::deal::{self, FoeLayout, KhanDeckOrder};
use crate::grammar::TokenError;
use crate::lex::{self, CommentLexError, LexError, LexFailure, Numeric};
use crate::nag::Nag;
use crate::pos::{Pos, Span};
use crate::result::GameResult;
use crate::split::{BOM, TAG_LINE_HEAD, tag_line_start};
use crate::tags::{self, GameKind, KNOWN_TAGS, NOTATION_VERSION, REQUIRED_TAGS};
use crate::visitor::{Dots, PlainToken, RawComment, RawTagValue, Visitor};

/// The buffer's starting size.
const INITIAL_BUFFER: usize = 1 << 16;

/// How many bytes the fast path checks as UTF-8 at a time (more for a
/// larger element).
const FAST_WINDOW: usize = 1024;

/// The default limit on one element (a comment, a token, a tag line).
pub const DEFAULT_MAX_ELEMENT: usize = 1 << 26;

/// The default limit on one game's text, header and movetext together.
/// Whoever keeps a game whole (a record for `yam show`, `export`, `fmt`)
/// holds several times its text in memory; played games, even long signed
/// ones with every roll, are a few hundred kilobytes.
pub const DEFAULT_MAX_GAME: u64 = 1 << 24;

/// The default limit on how deep variations nest. A checker keeps a
/// position for every open variation, so the limit is what bounds its
/// memory; games annotated by people nest a handful deep.
pub const DEFAULT_MAX_DEPTH: u32 = 256;

/// Where reading resumes after an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Resume {
    /// Skip to the start of the next game.
    SkipGame,
    /// The next game starts right here.
    Here,
}

#[derive(Debug)]
enum Fail {
    Io(io::Error),
    Syntax {
        pos: Pos,
        kind: ErrorKind,
        found: String,
        resume: Resume,
    },
}

impl From<io::Error> for Fail {
    fn from(e: io::Error) -> Fail {
        Fail::Io(e)
    }
}

/// Per-game state the reader keeps while reading the header and movetext.
#[derive(Debug, Default)]
struct GameState {
    seen_known: u64,
    game: Option<GameKind>,
    result_tag: Option<GameResult>,
    result_tag_text_ok: bool,
}

/// A lexed tag pair: where it starts, its name and raw value (with their
/// buffer indices, for errors) and its length.
#[derive(Debug, Clone, Copy)]
struct TagParts<'a> {
    start: Pos,
    name: &'a str,
    name_at: usize,
    value: &'a str,
    value_at: usize,
    len: usize,
}

/// A streaming reader of Yam records.
#[derive(Debug)]
pub struct Reader<R> {
    src: R,
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    /// Absolute offset of `buf[0]`.
    base: u64,
    eof: bool,
    line: u32,
    /// Absolute offset of the first byte of the current line.
    line_start: u64,
    /// How many continuation bytes of multi-byte characters the current
    /// line holds before `pos` (0 while the line began before the buffer,
    /// whose column [`Reader::pos_at`] counts in bytes). Kept as text is
    /// consumed, so that a position is arithmetic: nothing a visitor that
    /// ignores spans pays for.
    line_wide: u64,
    games: u64,
    max_element: usize,
    max_depth: u32,
    max_game: u64,
    /// Where the game being read began (offset), while one is.
    game_from: Option<u64>,
    /// Hashes of the unknown tag names seen in this game (reused).
    unknown_tags: SeenNames,
    /// About how long recent headers and movetexts were: the size of the
    /// fast path's first window, so that it checks little text twice.
    header_hint: usize,
    movetext_hint: usize,
    /// Tests turn the fast path off to compare it with the general code.
    #[cfg(test)]
    fast_path: bool,
}

impl<R: Read> Reader<R> {
    /// A reader over `src`.
    pub fn new(src: R) -> Reader<R> {
        Reader {
            buf: vec![0; INITIAL_BUFFER],
            ..Reader::unbuffered(src)
        }
    }

    /// A reader without its buffer yet, for the constructors to give it one.
    fn unbuffered(src: R) -> Reader<R> {
        Reader {
            src,
            buf: Vec::new(),
            pos: 0,
            end: 0,
            base: 0,
            eof: false,
            line: 1,
            line_start: 0,
            line_wide: 0,
            games: 0,
            max_element: DEFAULT_MAX_ELEMENT,
            max_depth: DEFAULT_MAX_DEPTH,
            max_game: DEFAULT_MAX_GAME,
            game_from: None,
            unknown_tags: SeenNames::default(),
            header_hint: FAST_WINDOW,
            movetext_hint: FAST_WINDOW,
            #[cfg(test)]
            fast_path: true,
        }
    }

    /// A reader over `src` that reads into `buffer`, the buffer of a reader
    /// done with ([`Reader::into_buffer`]): a caller reading many short
    /// sources one after the other (the pieces of an archive) then
    /// allocates and zeroes one buffer, not one a source. What `buffer`
    /// holds is never read; the reader starts at its usual size, so it
    /// reads, refills and reports exactly as [`Reader::new`]'s would.
    pub fn with_buffer(src: R, mut buffer: Vec<u8>) -> Reader<R> {
        if buffer.len() >= INITIAL_BUFFER {
            buffer.truncate(INITIAL_BUFFER);
        } else {
            buffer.resize(INITIAL_BUFFER, 0);
        }
        Reader {
            buf: buffer,
            ..Reader::unbuffered(src)
        }
    }

    /// The reader's buffer, for [`Reader::with_buffer`].
    pub fn into_buffer(self) -> Vec<u8> {
        self.buf
    }

    /// Set the largest element (comment, token, tag line) the reader will
    /// hold in memory; a larger one makes its game fail.
    pub fn with_max_element(mut self, bytes: usize) -> Reader<R> {
        self.max_element = bytes.max(INITIAL_BUFFER);
        self
    }

    /// Set the longest game (its header and movetext, in bytes) the reader
    /// reads; reading past it makes the game fail, and reading resumes at
    /// the next game. Checked as the buffer refills, so a game fails within
    /// a buffer's length past the limit. At least the buffer's size.
    pub fn with_max_game(mut self, bytes: u64) -> Reader<R> {
        self.max_game = bytes.max(INITIAL_BUFFER as u64);
        self
    }

    /// Set how deep variations may nest; a `(` that opens one more makes
    /// its game fail. At least 1.
    pub fn with_max_depth(mut self, depth: u32) -> Reader<R> {
        self.max_depth = depth.max(1);
        self
    }

    /// How many games have been started so far (good or bad).
    pub fn games_read(&self) -> u64 {
        self.games
    }

    /// How many bytes of input have been consumed.
    pub fn bytes_read(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Read the next game into `visitor`.
    ///
    /// `Ok(None)` at the end of the input. `Err(ReadError::Syntax)` for a
    /// malformed game, after which the next call reads the next game;
    /// `Err(ReadError::Io)` when the input cannot be read.
    pub fn read_game<V: Visitor>(
        &mut self,
        visitor: &mut V,
    ) -> Result<Option<V::Output>, ReadError> {
        if self.base == 0 && self.pos == 0 {
            // The file's own mark, before its first line.
            self.skip_bom()?;
        }
        // A byte-order mark where a game begins, at the start of its line
        // (records saved with one and joined with `cat`: docs/notation.md,
        // section 7), is stepped over with the whitespace around it.
        loop {
            if let Err(fail) = self.skip_whitespace() {
                return Err(match fail {
                    Fail::Io(e) => ReadError::Io(e),
                    // A lone CR between games: reported as the next game's
                    // fault (it stands where that game would begin), and
                    // stepped over, so reading goes on at the next game.
                    Fail::Syntax {
                        pos, kind, found, ..
                    } => {
                        self.games += 1;
                        self.pos = (self.pos + 1).min(self.end);
                        self.skip_to_next_game()?;
                        ReadError::Syntax(Box::new(ParseError {
                            pos,
                            kind,
                            found,
                            game: self.games,
                            game_start: pos,
                        }))
                    }
                });
            }
            if self.available() == 0 {
                return Ok(None);
            }
            if !(self.line_start == self.base + self.pos as u64 && self.skip_bom()?) {
                break;
            }
        }
        self.games += 1;
        let game_start = self.pos_here();
        visitor.begin_game();
        self.game_from = Some(self.bytes_read());
        let read = self.read_game_body(visitor);
        self.game_from = None;
        match read {
            Ok(output) => Ok(Some(output)),
            Err(Fail::Io(e)) => Err(ReadError::Io(e)),
            Err(Fail::Syntax {
                pos,
                kind,
                found,
                resume,
            }) => {
                if resume == Resume::SkipGame {
                    self.skip_to_next_game()?;
                }
                Err(ReadError::Syntax(Box::new(ParseError {
                    pos,
                    kind,
                    found,
                    game: self.games,
                    game_start,
                })))
            }
        }
    }

    fn read_game_body<V: Visitor>(&mut self, visitor: &mut V) -> Result<V::Output, Fail> {
        let mut state = GameState::default();
        self.unknown_tags.clear();
        let header_start = self.bytes_read();
        let game = self.read_header(visitor, &mut state)?;
        let movetext_start = self.bytes_read();
        self.header_hint = hint(self.header_hint, movetext_start - header_start);
        let skip_all = match visitor.end_tags(game) {
            Ok(skip) => skip.0,
            Err(expected) => {
                return Err(self.syntax_here(ErrorKind::Expected(expected), Resume::SkipGame));
            }
        };
        let result = self.read_movetext(visitor, skip_all)?;
        self.movetext_hint = hint(self.movetext_hint, self.bytes_read() - movetext_start);
        if let Some(tag) = state.result_tag
            && tag != result.0
        {
            {
                return Err(Fail::Syntax {
                    pos: result.1.start,
                    kind: ErrorKind::ResultMismatch {
                        tag: tag.to_string(),
                        movetext: result.0.to_string(),
                    },
                    found: result.0.to_string(),
                    resume: Resume::SkipGame,
                });
            }
        }
        if !skip_all {
            visitor.result(result.0, result.1);
        }
        Ok(visitor.end_game())
    }

    // ----- the header -----

    fn read_header<V: Visitor>(
        &mut self,
        visitor: &mut V,
        state: &mut GameState,
    ) -> Result<GameKind, Fail> {
        let mut count = 0usize;
        loop {
            count += self.fast_header(visitor, state)?;
            self.skip_whitespace()?;
            if self.peek()? != Some(b'[') {
                break;
            }
            self.read_tag_pair(visitor, state)?;
            count += 1;
        }
        let here = self.pos_at(self.pos);
        if count == 0 {
            let kind = self.not_a_game_start();
            return Err(self.syntax_here(kind, Resume::SkipGame));
        }
        let missing = missing_tags(state);
        if !missing.is_empty() {
            return Err(Fail::Syntax {
                pos: here,
                kind: ErrorKind::MissingTags(missing),
                found: self.found_at(self.pos),
                resume: Resume::SkipGame,
            });
        }
        if let Some(reason) = deal_conflict(state) {
            return Err(Fail::Syntax {
                pos: here,
                kind: ErrorKind::BadDeal(reason),
                found: self.found_at(self.pos),
                resume: Resume::SkipGame,
            });
        }
        if !state.result_tag_text_ok {
            return Err(Fail::Syntax {
                pos: here,
                kind: ErrorKind::BadTag("a Result tag value such as 1-0, 0-1, 1/2-1/2 or *".into()),
                found: self.found_at(self.pos),
                resume: Resume::SkipGame,
            });
        }
        Ok(state.game.expect("missing_tags checks the Game tag"))
    }

    fn read_tag_pair<V: Visitor>(
        &mut self,
        visitor: &mut V,
        state: &mut GameState,
    ) -> Result<(), Fail> {
        let start = self.pos_at(self.pos);
        let pair = loop {
            let window = &self.buf[self.pos..self.end];
            match lex::tag_pair(window, self.eof) {
                Ok((_, pair)) => break pair,
                Err(Err::Incomplete(_)) if self.eof => {
                    return Err(self.syntax_at(
                        self.end,
                        ErrorKind::Truncated("a tag pair"),
                        Resume::SkipGame,
                    ));
                }
                Err(Err::Incomplete(_)) => self.fill()?,
                Err(Err::Error(e) | Err::Failure(e)) => {
                    let kind = lex_error_kind(&e, "the tag pair");
                    return Err(self.lex_failure(window.len() - e.input.len(), kind));
                }
            }
        };
        let name_at = self.pos + pair.name.start;
        let value_range = self.pos + pair.value.start..self.pos + pair.value.end;
        let value = match std::str::from_utf8(&self.buf[value_range.clone()]) {
            Ok(v) => v,
            Err(e) => {
                let at = value_range.start + e.valid_up_to();
                return Err(self.syntax_at(at, ErrorKind::InvalidUtf8, Resume::SkipGame));
            }
        };
        // The lexer only lets ASCII letters, digits and _ into a name.
        let name =
            std::str::from_utf8(&self.buf[name_at..self.pos + pair.name.end]).unwrap_or_default();
        let tag = TagParts {
            start,
            name,
            name_at,
            value,
            value_at: value_range.start,
            len: pair.len,
        };
        if let Some(hash) = self.accept_tag(visitor, state, &tag)? {
            self.unknown_tags.insert(hash);
        }
        self.advance(pair.len);
        Ok(())
    }

    /// Everything after lexing a tag pair: duplicates, the tags the reader
    /// itself reads, the visitor. Returns the hash of an unknown name, for
    /// the caller to remember.
    ///
    /// Inlined into both callers: most tags are known tags whose value the
    /// reader does not read, for which this is a lookup and a bit; the
    /// values it reads and every error are out of line.
    #[inline(always)]
    fn accept_tag<V: Visitor>(
        &self,
        visitor: &mut V,
        state: &mut GameState,
        tag: &TagParts<'_>,
    ) -> Result<Option<u64>, Fail> {
        let TagParts {
            start,
            name,
            name_at,
            value,
            value_at,
            len,
        } = *tag;
        let mut unknown = None;
        match tags::known_tag(name) {
            Some((rank, canonical)) => {
                let bit = 1u64 << rank;
                if state.seen_known & bit != 0 {
                    return Err(self.duplicate_tag(name_at, canonical));
                }
                state.seen_known |= bit;
                if READ_VALUE_MASK & bit != 0 {
                    self.read_tag_value(state, rank, value, value_at)?;
                }
            }
            None => unknown = Some(self.unknown_tag(name, name_at)?),
        }
        let span = Span::new(start, len);
        if let Err(e) = visitor.tag(name, RawTagValue(value), span) {
            return Err(self.refused_tag(value, value_at, e));
        }
        Ok(unknown)
    }

    #[cold]
    #[inline(never)]
    fn duplicate_tag(&self, name_at: usize, name: &str) -> Fail {
        self.syntax_at(
            name_at,
            ErrorKind::DuplicateTag(name.to_owned()),
            Resume::SkipGame,
        )
    }

    #[cold]
    #[inline(never)]
    fn refused_tag(&self, value: &str, value_at: usize, e: TokenError) -> Fail {
        let kind = ErrorKind::BadTag(e.expected);
        let at = value_at + e.offset.min(value.len());
        self.syntax_at(at, kind, Resume::SkipGame)
    }

    /// An unknown tag name's hash, unless the game already had it.
    #[inline(never)]
    fn unknown_tag(&self, name: &str, name_at: usize) -> Result<u64, Fail> {
        let hash = fold_hash(name);
        if self.unknown_tags.contains(&hash) {
            return Err(self.duplicate_tag(name_at, name));
        }
        Ok(hash)
    }

    /// The known tags whose values the reader reads itself
    /// ([`READ_VALUE_MASK`]).
    #[inline(never)]
    fn read_tag_value(
        &self,
        state: &mut GameState,
        rank: usize,
        value: &str,
        value_at: usize,
    ) -> Result<(), Fail> {
        match rank {
            GAME_RANK => {
                let decoded = tags::unescape_tag_value(value);
                match GameKind::from_name(&decoded) {
                    Some(g) => state.game = Some(g),
                    None => {
                        return Err(self.syntax_at(
                            value_at,
                            ErrorKind::UnknownGame(decoded.into_owned()),
                            Resume::SkipGame,
                        ));
                    }
                }
            }
            RESULT_RANK => {
                let decoded = tags::unescape_tag_value(value);
                state.result_tag = GameResult::parse(decoded.trim().as_bytes());
                if state.result_tag.is_none() {
                    return Err(self.syntax_at(
                        value_at,
                        ErrorKind::BadTag("a result: 1-0, 0-1, 1/2-1/2, +/-, -/+, -/-, * or a score such as 112/150".into()),
                        Resume::SkipGame,
                    ));
                }
                state.result_tag_text_ok = true;
            }
            // One verdict for every command: a date the calendar
            // does not have is refused here, while reading.
            DATE_RANK => {
                let decoded = tags::unescape_tag_value(value);
                if !crate::record::is_calendar_date(&decoded) {
                    return Err(self.syntax_at(
                        value_at,
                        ErrorKind::BadTag(
                            "a calendar date YYYY.MM.DD, with ?? for an unknown part (2026.11.29, 2026.11.??, ????.??.??)".into(),
                        ),
                        Resume::SkipGame,
                    ));
                }
            }
            // One verdict for every command, as for the date: a
            // deal from physical cards that no deck could give is
            // refused while reading (GK-01, GK-02).
            FOE_LAYOUT_RANK | KHAN_DECK_RANK => {
                let decoded = tags::unescape_tag_value(value);
                let checked = if rank == FOE_LAYOUT_RANK {
                    FoeLayout::parse(&decoded).map(drop)
                } else {
                    KhanDeckOrder::parse(&decoded).map(drop)
                };
                if let Err(e) = checked {
                    // Offsets are the unescaped value's; they are the
                    // raw value's too unless it holds escapes.
                    let at = if decoded.len() == value.len() {
                        value_at + e.offset.min(value.len())
                    } else {
                        value_at
                    };
                    return Err(self.syntax_at(
                        at,
                        ErrorKind::BadDeal(e.to_string()),
                        Resume::SkipGame,
                    ));
                }
            }
            VERSION_RANK => {
                let decoded = tags::unescape_tag_value(value);
                if decoded.trim() != NOTATION_VERSION {
                    return Err(self.syntax_at(
                        value_at,
                        ErrorKind::UnsupportedVersion(decoded.into_owned()),
                        Resume::SkipGame,
                    ));
                }
            }
            _ => {}
        }
        Ok(())
    }

    // ----- the movetext -----

    fn read_movetext<V: Visitor>(
        &mut self,
        visitor: &mut V,
        skip_all: bool,
    ) -> Result<(GameResult, Span), Fail> {
        let mut depth: u32 = 0;
        // The depth at which a skipped variation began (or 0 for the whole movetext).
        let mut skip_from: Option<u32> = if skip_all { Some(0) } else { None };
        loop {
            self.fast_movetext(visitor, &mut depth, &mut skip_from)?;
            self.skip_whitespace()?;
            let Some(b) = self.peek()? else {
                let kind = if depth > 0 {
                    ErrorKind::UnterminatedVariation
                } else {
                    ErrorKind::MissingResult
                };
                return Err(self.syntax_here(kind, Resume::SkipGame));
            };
            let live = skip_from.is_none();
            match b {
                b'{' => self.read_comment(visitor, live)?,
                b'(' => {
                    if depth >= self.max_depth {
                        return Err(
                            self.syntax_here(ErrorKind::TooDeep(self.max_depth), Resume::SkipGame)
                        );
                    }
                    self.advance_inline(1);
                    depth += 1;
                    if live && visitor.begin_variation().0 {
                        skip_from = Some(depth);
                    }
                }
                b')' => {
                    if depth == 0 {
                        return Err(
                            self.syntax_here(ErrorKind::UnopenedVariation, Resume::SkipGame)
                        );
                    }
                    self.advance_inline(1);
                    if live {
                        visitor.end_variation();
                    } else if skip_from == Some(depth) {
                        skip_from = None;
                    }
                    depth -= 1;
                }
                b'$' => {
                    let (value, len) = self.lex_simple(lex::nag, "a NAG")?;
                    if live {
                        visitor.nag(Nag(value), Span::new(self.pos_here(), len));
                    }
                    self.advance_inline(len);
                }
                b'!' | b'?' => {
                    let len = self.lex_simple(lex::glyph, "an annotation glyph")?;
                    let Some(nag) = Nag::from_glyph(&self.buf[self.pos..self.pos + len]) else {
                        return Err(self.syntax_here(
                            ErrorKind::Expected("one of the glyphs !, ?, !!, ??, !? or ?!".into()),
                            Resume::SkipGame,
                        ));
                    };
                    if live {
                        visitor.nag(nag, Span::new(self.pos_here(), len));
                    }
                    self.advance_inline(len);
                }
                b'0'..=b'9' | b'*' | b'+' | b'-' => match self.quick_result_here().map_or_else(
                    || self.lex_simple(lex::numeric, "a move number or a result"),
                    |len| Ok(Numeric::Result { len }),
                )? {
                    Numeric::MoveNumber { number, dots, len } => {
                        if live {
                            let dots = if dots == 1 { Dots::One } else { Dots::Three };
                            visitor.move_number(number, dots, Span::new(self.pos_here(), len));
                        }
                        self.advance_inline(len);
                    }
                    Numeric::Result { len } => {
                        let span = Span::new(self.pos_here(), len);
                        let result = GameResult::parse(&self.buf[self.pos..self.pos + len])
                            .expect("the lexer only accepts results");
                        if depth > 0 {
                            return Err(self.syntax_here(
                                ErrorKind::StrayResult("a result cannot stand inside a variation"),
                                Resume::SkipGame,
                            ));
                        }
                        self.advance_inline(len);
                        self.finish_result_line()?;
                        return Ok((result, span));
                    }
                },
                // The next game's header where this one has not ended: at
                // a line's start, `[` and a letter, after a byte-order
                // mark or not (docs/notation.md, section 7).
                b'[' | 0xef if self.header_begins_here()? => {
                    let kind = if depth > 0 {
                        ErrorKind::UnterminatedVariation
                    } else {
                        ErrorKind::MissingResult
                    };
                    return Err(self.syntax_here(kind, Resume::Here));
                }
                b'[' => {
                    return Err(self.syntax_here(
                        ErrorKind::Expected(
                            "a move, comment, NAG, variation or result (embedded commands [%...] go inside comments)"
                                .into(),
                        ),
                        Resume::SkipGame,
                    ));
                }
                b'}' | b']' | b';' | b'%' => {
                    return Err(self.syntax_here(
                        ErrorKind::Expected("a move, comment, NAG, variation or result".into()),
                        Resume::SkipGame,
                    ));
                }
                b if b < 0x20 || b == 0x7f => {
                    return Err(self.syntax_here(
                        ErrorKind::Expected(
                            "a move, comment, NAG, variation or result, not a control character"
                                .into(),
                        ),
                        Resume::SkipGame,
                    ));
                }
                _ => self.read_token(visitor, live)?,
            }
        }
    }

    fn read_token<V: Visitor>(&mut self, visitor: &mut V, live: bool) -> Result<(), Fail> {
        let len = self.lex_simple(lex::token, "a move")?;
        if len == 0 {
            return Err(self.syntax_here(ErrorKind::Expected("a move".into()), Resume::SkipGame));
        }
        let range = self.pos..self.pos + len;
        let text = match std::str::from_utf8(&self.buf[range.clone()]) {
            Ok(t) => t,
            Err(e) => {
                return Err(self.syntax_at(
                    range.start + e.valid_up_to(),
                    ErrorKind::InvalidUtf8,
                    Resume::SkipGame,
                ));
            }
        };
        if live {
            let span = Span::new(self.pos_here(), len);
            if let Err(e) = visitor.token(text, span) {
                return Err(self.token_error(range.start, text, e));
            }
        }
        self.advance_inline(len);
        Ok(())
    }

    /// The error for a move token at buffer index `at` that the visitor refused.
    fn token_error(&self, at: usize, token: &str, e: TokenError) -> Fail {
        let mut fail = self.syntax_at(
            at + e.offset.min(token.len()),
            ErrorKind::BadMove(e.expected),
            Resume::SkipGame,
        );
        if let Fail::Syntax { found, .. } = &mut fail {
            *found = token.to_owned();
        }
        fail
    }

    // ----- the fast path -----
    //
    // Most of an archive is a few common elements in their usual form. The
    // fast path reads those by hand from a window of the buffer that it has
    // checked to be UTF-8 once, so that each element's text is a slice of
    // the window: no per-element validation, no parser combinators. It
    // stops, without consuming it, at anything else (results, the rare
    // forms, anything malformed, an element that needs more input than the
    // buffer holds), and the general code reads that element exactly as it
    // would have without the fast path. So every outcome, error position
    // and refill is the general code's; the fast path only accepts elements
    // the general code would accept, with the same events.

    /// The end of a fast-path window of about `len` bytes from `from`: the
    /// end of the buffered input, or a point moved back off a character's
    /// continuation bytes so as not to cut it.
    fn window_end(&self, from: usize, len: usize) -> usize {
        let mut to = from.saturating_add(len);
        if to >= self.end {
            return self.end;
        }
        let mut back = 0;
        while back < 3 && to > from && (self.buf[to] as i8) < -0x40 {
            to -= 1;
            back += 1;
        }
        to
    }

    /// Read tag pairs of the usual form for as long as they lie whole in the
    /// buffer; returns how many. Stops before anything else.
    ///
    /// Out of line: inlined into `read_game_body`, it shared its registers
    /// with the movetext's loop, and both spilled more (1.44 M instructions
    /// more over three copies of the bench's archive, 1.0 M more in the
    /// 2.5 MB one). `read_header` and `fast_movetext` out of line instead
    /// each cost more than they saved.
    #[inline(never)]
    fn fast_header<V: Visitor>(
        &mut self,
        visitor: &mut V,
        state: &mut GameState,
    ) -> Result<usize, Fail> {
        let mut count = 0;
        #[cfg(test)]
        if !self.fast_path {
            return Ok(0);
        }
        let mut window = self.header_hint;
        'window: loop {
            let from = self.pos;
            let window_at = self.base + from as u64;
            let to = self.window_end(from, window);
            let text = valid_prefix(&self.buf[from..to]);
            let bytes = text.as_bytes();
            let can_widen = from + bytes.len() == to && to < self.end;
            // The element at `self.pos` runs past the window: validate a
            // larger one from it, or leave it to the general code.
            macro_rules! need_more {
                () => {{
                    if can_widen {
                        window = FAST_WINDOW.max(2 * (to - self.pos));
                        continue 'window;
                    }
                    return Ok(count);
                }};
            }
            loop {
                let mut i = fast_whitespace(
                    bytes,
                    self.pos - from,
                    window_at,
                    (&mut self.line, &mut self.line_start, &mut self.line_wide),
                );
                self.pos = from + i;
                let Some(&b) = bytes.get(i) else {
                    need_more!();
                };
                if b != b'[' {
                    return Ok(count);
                }
                // `[`, spaces, name, spaces, `"value"`, spaces, `]`.
                let start = i;
                i += 1;
                while matches!(bytes.get(i), Some(b' ' | b'\t')) {
                    i += 1;
                }
                let name_start = i;
                match bytes.get(i) {
                    None => need_more!(),
                    Some(c) if c.is_ascii_alphabetic() => {}
                    Some(_) => return Ok(count),
                }
                // Eight bytes at a time while all are name bytes, then
                // byte by byte to the exact end.
                while let Some(eight) = bytes.get(i..i + 8) {
                    let x = u64::from_le_bytes(eight.try_into().unwrap_or_default());
                    let k = (lex::tag_name_stops(x).trailing_zeros() / 8) as usize;
                    i += k;
                    if k < 8 {
                        break;
                    }
                }
                while bytes.get(i).is_some_and(|&c| lex::is_tag_name_byte(c)) {
                    i += 1;
                }
                let name_end = i;
                while matches!(bytes.get(i), Some(b' ' | b'\t')) {
                    i += 1;
                }
                match bytes.get(i) {
                    None => need_more!(),
                    Some(b'"') => i += 1,
                    Some(_) => return Ok(count),
                }
                let value_start = i;
                let mut ascii = true;
                match scan_quoted(bytes, i, &mut ascii) {
                    Quoted::Closed(end) => i = end,
                    Quoted::NeedMore => need_more!(),
                    Quoted::Refused => return Ok(count),
                }
                let value_end = i;
                i += 1;
                while matches!(bytes.get(i), Some(b' ' | b'\t')) {
                    i += 1;
                }
                match bytes.get(i) {
                    None => need_more!(),
                    Some(b']') => i += 1,
                    Some(_) => return Ok(count),
                }
                let (Some(name), Some(value)) = (
                    substr(text, name_start, name_end),
                    substr(text, value_start, value_end),
                ) else {
                    return Ok(count);
                };
                let tag = TagParts {
                    start: self.pos_here(),
                    name,
                    name_at: from + name_start,
                    value,
                    value_at: from + value_start,
                    len: i - start,
                };
                if let Some(hash) = self.accept_tag(visitor, state, &tag)? {
                    self.unknown_tags.insert(hash);
                }
                // A tag pair holds no line break.
                if !ascii && self.line_start >= self.base {
                    self.line_wide += continuation_bytes(&bytes[start..i]);
                }
                self.pos = from + i;
                count += 1;
            }
        }
    }

    /// Read the common movetext elements (move tokens, move numbers,
    /// comments, NAGs, glyphs, variations, whitespace) for as long as they
    /// lie whole in the buffer. Stops before anything else.
    fn fast_movetext<V: Visitor>(
        &mut self,
        visitor: &mut V,
        depth: &mut u32,
        skip_from: &mut Option<u32>,
    ) -> Result<(), Fail> {
        #[cfg(test)]
        if !self.fast_path {
            return Ok(());
        }
        let mut window = self.movetext_hint;
        'window: loop {
            let from = self.pos;
            let window_at = self.base + from as u64;
            let to = self.window_end(from, window);
            let text = valid_prefix(&self.buf[from..to]);
            let bytes = text.as_bytes();
            let can_widen = from + bytes.len() == to && to < self.end;
            macro_rules! need_more {
                () => {{
                    if can_widen {
                        window = FAST_WINDOW.max(2 * (to - self.pos));
                        continue 'window;
                    }
                    return Ok(());
                }};
            }
            loop {
                let mut i = fast_whitespace(
                    bytes,
                    self.pos - from,
                    window_at,
                    (&mut self.line, &mut self.line_start, &mut self.line_wide),
                );
                self.pos = from + i;
                let live = skip_from.is_none();
                // The two most common elements, each followed by one space,
                // read from one eight-byte word: a move token of one to
                // seven plain ASCII bytes starting with a letter (or any
                // byte from `A` up), and a move number of one to six digits
                // and one dot. The space (or, after a token, an LF) is
                // consumed with the element.
                // Anything else, or fewer than eight bytes left, goes the
                // general way below, which reads these the same way (the
                // same events and spans, the same position after the space).
                let quick_from = i;
                while let Some(eight) = bytes.get(i..i + 8) {
                    let x = u64::from_le_bytes(eight.try_into().unwrap_or_default());
                    let b = x as u8;
                    if b >= b'A' {
                        // The first byte that may stop the token; 8 if none.
                        let k = (lex::token_quick_stops(x).trailing_zeros() / 8) as usize;
                        // `k >= 1`: the first byte is plain ASCII, so not
                        // one the general code reads otherwise; so are the
                        // rest up to the space.
                        if k == 0 || k == 8 {
                            break;
                        }
                        // A space, or the line's end (an LF, counted as
                        // the whitespace loop counts it).
                        let end = (x >> (8 * k)) as u8;
                        if end != b' ' && end != b'\n' {
                            break;
                        }
                        // Offered first without a span or a slice; both
                        // only if the visitor declines.
                        if live && !visitor.plain_token(PlainToken::in_source(text, i, k, x)) {
                            // Never the default: the token's bytes are
                            // ASCII, so both ends are character boundaries.
                            // Without a failure branch the slicing is dead
                            // code for a visitor that ignores the text.
                            let token = substr(text, i, i + k).unwrap_or_default();
                            let span = Span::new(self.pos_here(), k);
                            if let Err(e) = visitor.token(token, span) {
                                return Err(self.token_error(self.pos, token, e));
                            }
                        }
                        i += k + 1;
                        if end == b'\n' {
                            self.line += 1;
                            self.line_start = window_at + i as u64;
                            self.line_wide = 0;
                        }
                    } else if b.is_ascii_digit() {
                        let mut number = 0u32;
                        let mut k = 0;
                        let mut w = x;
                        while k < 7 {
                            let d = (w as u8).wrapping_sub(b'0');
                            if d >= 10 {
                                break;
                            }
                            number = number * 10 + u32::from(d);
                            w >>= 8;
                            k += 1;
                        }
                        // Digits, one dot, a space.
                        if w as u16 != u16::from_le_bytes([b'.', b' ']) {
                            break;
                        }
                        if live && !visitor.plain_move_number(number) {
                            visitor.move_number(
                                number,
                                Dots::One,
                                Span::new(self.pos_here(), k + 1),
                            );
                        }
                        i += k + 2;
                    } else {
                        break;
                    }
                    self.pos = from + i;
                }
                if i != quick_from {
                    // Whitespace may follow: the loop's start reads it.
                    continue;
                }
                let Some(&b) = bytes.get(i) else {
                    need_more!();
                };
                let start = i;
                match b {
                    b'0'..=b'9' => {
                        // Up to nine digits cannot overflow; more (leading
                        // zeros, or too large) are left to the general code.
                        let mut number = 0u32;
                        while let Some(&d) = bytes.get(i)
                            && d.is_ascii_digit()
                        {
                            if i - start == 9 {
                                return Ok(());
                            }
                            number = number * 10 + u32::from(d - b'0');
                            i += 1;
                        }
                        match bytes.get(i) {
                            None => need_more!(),
                            Some(b'.') => {}
                            // A result, or something malformed.
                            Some(_) => return Ok(()),
                        }
                        let dots = i;
                        while bytes.get(i) == Some(&b'.') {
                            i += 1;
                        }
                        if i == bytes.len() {
                            need_more!();
                        }
                        if live {
                            let dots = if i - dots == 1 {
                                Dots::One
                            } else {
                                Dots::Three
                            };
                            visitor.move_number(
                                number,
                                dots,
                                Span::new(self.pos_here(), i - start),
                            );
                        }
                    }
                    b'{' => {
                        let found = match lex::comment(&bytes[i..], false) {
                            Ok(found) => found,
                            Err(CommentLexError::Incomplete) => need_more!(),
                            Err(_) => return Ok(()),
                        };
                        let Some(body) = substr(text, i + found.body.start, i + found.body.end)
                        else {
                            return Ok(());
                        };
                        if comment::check_body(body).is_err() || lone_cr(body).is_some() {
                            return Ok(());
                        }
                        if live {
                            visitor
                                .comment(RawComment(body), Span::new(self.pos_here(), found.len));
                        }
                        i += found.len;
                        track_lines(
                            &bytes[start..i],
                            self.base + self.pos as u64,
                            self.base,
                            &mut self.line,
                            &mut self.line_start,
                            &mut self.line_wide,
                        );
                    }
                    b'(' => {
                        if *depth >= self.max_depth {
                            // The general code says so.
                            return Ok(());
                        }
                        i += 1;
                        *depth += 1;
                        if live && visitor.begin_variation().0 {
                            *skip_from = Some(*depth);
                        }
                    }
                    b')' => {
                        if *depth == 0 {
                            return Ok(());
                        }
                        i += 1;
                        if live {
                            visitor.end_variation();
                        } else if *skip_from == Some(*depth) {
                            *skip_from = None;
                        }
                        *depth -= 1;
                    }
                    b'$' => {
                        i += 1;
                        let mut value = Some(0u8);
                        while let Some(&d) = bytes.get(i)
                            && d.is_ascii_digit()
                        {
                            value = value
                                .and_then(|v| v.checked_mul(10))
                                .and_then(|v| v.checked_add(d - b'0'));
                            i += 1;
                        }
                        if i == bytes.len() {
                            need_more!();
                        }
                        let (true, Some(value)) = (i > start + 1, value) else {
                            return Ok(());
                        };
                        if live {
                            visitor.nag(Nag(value), Span::new(self.pos_here(), i - start));
                        }
                    }
                    b'!' | b'?' => {
                        while matches!(bytes.get(i), Some(b'!' | b'?')) {
                            i += 1;
                        }
                        if i == bytes.len() {
                            need_more!();
                        }
                        let Some(nag) = Nag::from_glyph(&bytes[start..i]) else {
                            return Ok(());
                        };
                        if live {
                            visitor.nag(nag, Span::new(self.pos_here(), i - start));
                        }
                    }
                    // Results, and what cannot start an element; a
                    // byte-order mark's first byte, which may begin the
                    // next game's header (the slow path decides).
                    b'*'
                    | b'+'
                    | b'-'
                    | b'['
                    | b']'
                    | b'}'
                    | b';'
                    | b'%'
                    | 0..=0x1f
                    | 0x7f
                    | 0xef => {
                        return Ok(());
                    }
                    _ => {
                        let mut ascii = true;
                        // 1 when the token ends at a space, which is then
                        // consumed with it rather than by a whitespace run.
                        let mut space = 0;
                        loop {
                            // Skip plain bytes eight at a time.
                            if let Some(eight) = bytes.get(i..i + 8) {
                                let x = u64::from_le_bytes(eight.try_into().unwrap_or_default());
                                match lex::token_stop(x) {
                                    None => {
                                        i += 8;
                                        continue;
                                    }
                                    Some(k) => i += k,
                                }
                            }
                            let Some(&c) = bytes.get(i) else {
                                need_more!();
                            };
                            // Most tokens end at a space.
                            if c == b' ' {
                                space = 1;
                                break;
                            }
                            match lex::TOKEN_CLASS[usize::from(c)] {
                                lex::TOKEN_PLAIN => i += 1,
                                lex::TOKEN_HIGH => {
                                    ascii = false;
                                    i += 1;
                                }
                                lex::TOKEN_QUOTE => match scan_quoted(bytes, i + 1, &mut ascii) {
                                    Quoted::Closed(end) => i = end + 1,
                                    Quoted::NeedMore => need_more!(),
                                    Quoted::Refused => return Ok(()),
                                },
                                _ => break,
                            }
                        }
                        if live {
                            let Some(token) = substr(text, start, i) else {
                                return Ok(());
                            };
                            let span = Span::new(self.pos_here(), i - start);
                            if let Err(e) = visitor.token(token, span) {
                                return Err(self.token_error(self.pos, token, e));
                            }
                        }
                        if !ascii && self.line_start >= self.base {
                            self.line_wide += continuation_bytes(&bytes[start..i]);
                        }
                        i += space;
                    }
                }
                self.pos = from + i;
            }
        }
    }

    fn read_comment<V: Visitor>(&mut self, visitor: &mut V, live: bool) -> Result<(), Fail> {
        let found = loop {
            match lex::comment(&self.buf[self.pos..self.end], self.eof) {
                Ok(found) => break found,
                Err(CommentLexError::Incomplete) => self.fill()?,
                Err(CommentLexError::Unterminated) => {
                    return Err(self.syntax_here(ErrorKind::UnterminatedComment, Resume::SkipGame));
                }
                Err(CommentLexError::TagLineInside(at)) => {
                    let fail = self.syntax_here(ErrorKind::UnterminatedComment, Resume::Here);
                    // Resume at the tag line, which starts the next game.
                    self.advance(at);
                    return Err(fail);
                }
            }
        };
        let body_range = self.pos + found.body.start..self.pos + found.body.end;
        let body = match std::str::from_utf8(&self.buf[body_range.clone()]) {
            Ok(b) => b,
            Err(e) => {
                return Err(self.syntax_at(
                    body_range.start + e.valid_up_to(),
                    ErrorKind::InvalidUtf8,
                    Resume::SkipGame,
                ));
            }
        };
        // Line ends are LF or CRLF inside comments as everywhere (a CR
        // alone would end a line for one reader and not for another).
        if let Some(at) = lone_cr(body) {
            return Err(self.syntax_at(
                body_range.start + at,
                ErrorKind::LoneCarriageReturn,
                Resume::SkipGame,
            ));
        }
        if let Some(Err(e)) = RawParts::new(body).find(Result::is_err) {
            let kind = if e.expected.starts_with("an escape") {
                ErrorKind::BadEscape(
                    "\\\\, \\{, \\} and \\[ in prose; \\\\, \\\", \\{ and \\} in quoted arguments",
                )
            } else {
                ErrorKind::Expected(e.expected.into())
            };
            return Err(self.syntax_at(body_range.start + e.offset, kind, Resume::SkipGame));
        }
        if live {
            visitor.comment(RawComment(body), Span::new(self.pos_here(), found.len));
        }
        self.advance(found.len);
        Ok(())
    }

    /// After a result, only whitespace may follow on its line.
    fn finish_result_line(&mut self) -> Result<(), Fail> {
        loop {
            while self.pos < self.end {
                match self.buf[self.pos] {
                    b' ' | b'\t' => self.pos += 1,
                    b'\r' => match self.after_cr() {
                        None => break,
                        Some(true) => self.pos += 1,
                        Some(false) => {
                            return Err(
                                self.syntax_here(ErrorKind::LoneCarriageReturn, Resume::SkipGame)
                            );
                        }
                    },
                    b'\n' => return Ok(()),
                    _ => {
                        return Err(self.syntax_here(
                            ErrorKind::StrayResult(
                                "only the end of the line may follow the result",
                            ),
                            Resume::SkipGame,
                        ));
                    }
                }
            }
            if self.eof {
                return Ok(());
            }
            self.fill()?;
        }
    }

    // ----- recovery -----

    /// Skip to the next line that starts a tag pair (`[` and a letter) and
    /// follows a line that does not: the header of the next game.
    fn skip_to_next_game(&mut self) -> Result<(), ReadError> {
        let mut prev_line_is_tag = self.current_line_starts_with_tag();
        loop {
            // Find the end of the current line.
            let newline = loop {
                if let Some(i) = memchr::memchr(b'\n', &self.buf[self.pos..self.end]) {
                    break Some(i);
                }
                if self.eof {
                    break None;
                }
                self.advance(self.end - self.pos);
                self.fill_unbounded()?;
            };
            let Some(i) = newline else {
                self.advance(self.end - self.pos);
                return Ok(());
            };
            self.advance(i + 1);
            // Is the new line a tag line?
            while self.available() < TAG_LINE_HEAD && !self.eof {
                self.fill_unbounded()?;
            }
            let head = &self.buf[self.pos..self.end.min(self.pos + TAG_LINE_HEAD)];
            let is_tag = tag_line_start(head) == Some(true);
            if is_tag && !prev_line_is_tag {
                return Ok(());
            }
            if self.available() == 0 && self.eof {
                return Ok(());
            }
            prev_line_is_tag = is_tag;
        }
    }

    fn current_line_starts_with_tag(&self) -> bool {
        match self.line_start.checked_sub(self.base) {
            Some(start) => {
                let start = start as usize;
                start < self.end
                    && tag_line_start(&self.buf[start..self.end.min(start + TAG_LINE_HEAD)])
                        == Some(true)
            }
            None => false,
        }
    }

    /// What is wrong where a game should begin: a file in another
    /// encoding is said to be one (an editor's "Unicode" is UTF-16, whose
    /// byte-order mark or NUL bytes between ASCII letters would otherwise
    /// read as a missing tag pair beside a line that visibly holds one);
    /// anything else is a missing tag pair.
    #[cold]
    fn not_a_game_start(&mut self) -> ErrorKind {
        let _ = self.peek_at(3);
        let ahead = &self.buf[self.pos..self.end.min(self.pos + 4)];
        if ahead.starts_with(&[0xFF, 0xFE]) || ahead.starts_with(&[0xFE, 0xFF]) {
            return ErrorKind::Expected(
                "UTF-8 text, not UTF-16: the file begins with a UTF-16 byte-order mark (save it as UTF-8)"
                    .into(),
            );
        }
        if ahead.starts_with(&BOM) {
            return ErrorKind::Expected(
                "a tag pair such as [Game \"Khan\"] to begin a game, not a byte-order mark in the middle of a line (a record joined to the line before it?)"
                    .into(),
            );
        }
        if ahead.iter().take(2).any(|&b| b == 0) {
            return ErrorKind::Expected(
                "UTF-8 text, not UTF-16: NUL bytes stand between the characters (save the file as UTF-8)"
                    .into(),
            );
        }
        if let Err(e) = std::str::from_utf8(ahead)
            && e.valid_up_to() == 0
            && e.error_len().is_some()
        {
            return ErrorKind::InvalidUtf8;
        }
        ErrorKind::Expected("a tag pair such as [Game \"Khan\"] to begin a game".into())
    }

    // ----- buffer management -----

    fn available(&self) -> usize {
        self.end - self.pos
    }

    /// Read more input, keeping everything from `pos` on. Grows the buffer
    /// when it is full, up to the element limit.
    fn fill(&mut self) -> Result<(), Fail> {
        // What the game holds so far counts the element under way too (the
        // bytes from `pos` to `end`, all of it, since more is asked for):
        // counting the bytes consumed alone let one comment of up to the
        // element limit pass the game limit whole.
        if let Some(from) = self.game_from
            && (self.base + self.end as u64).saturating_sub(from) > self.max_game
        {
            return Err(self.game_too_long());
        }
        if self.pos == 0 && self.end == self.buf.len() && self.buf.len() >= self.max_element {
            return Err(Fail::Syntax {
                pos: self.pos_at(self.pos),
                kind: ErrorKind::TooLong(self.max_element),
                found: self.found_at(self.pos),
                resume: Resume::SkipGame,
            });
        }
        self.fill_unbounded().map_err(|e| match e {
            ReadError::Io(e) => Fail::Io(e),
            ReadError::Syntax(_) => unreachable!("fill_unbounded only fails on I/O"),
        })
    }

    #[cold]
    #[inline(never)]
    fn game_too_long(&self) -> Fail {
        Fail::Syntax {
            pos: self.pos_at(self.pos),
            kind: ErrorKind::GameTooLong(self.max_game),
            found: self.found_at(self.pos),
            resume: Resume::SkipGame,
        }
    }

    fn fill_unbounded(&mut self) -> Result<(), ReadError> {
        if self.pos > 0 {
            self.buf.copy_within(self.pos..self.end, 0);
            self.end -= self.pos;
            self.base += self.pos as u64;
            self.pos = 0;
        }
        if self.end == self.buf.len() {
            let grown = (self.buf.len() * 2).min(self.max_element.max(self.buf.len()));
            if grown == self.buf.len() {
                // Full and at the limit: drop what we hold (only recovery gets here).
                self.base += self.end as u64;
                self.end = 0;
            } else {
                self.buf.resize(grown, 0);
            }
        }
        // The line now begins before the buffer: its column is counted in
        // bytes from here on (see `pos_at`).
        if self.line_start < self.base {
            self.line_wide = 0;
        }
        loop {
            match self.src.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(());
                }
                Ok(n) => {
                    self.end += n;
                    return Ok(());
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(ReadError::Io(e)),
            }
        }
    }

    fn peek(&mut self) -> Result<Option<u8>, Fail> {
        self.peek_at(0)
    }

    fn peek_at(&mut self, k: usize) -> Result<Option<u8>, Fail> {
        while self.available() <= k && !self.eof {
            self.fill()?;
        }
        Ok(self
            .buf
            .get(self.pos + k)
            .copied()
            .filter(|_| self.pos + k < self.end))
    }

    fn at_line_start(&self) -> bool {
        self.base + self.pos as u64 == self.line_start
    }

    /// Whether a tag line (a game's header) begins at `pos`: the line's
    /// start, then `[` and a letter, after a byte-order mark or not.
    fn header_begins_here(&mut self) -> Result<bool, Fail> {
        if !self.at_line_start() {
            return Ok(false);
        }
        let _ = self.peek_at(TAG_LINE_HEAD - 1)?;
        let head = &self.buf[self.pos..self.end.min(self.pos + TAG_LINE_HEAD)];
        Ok(tag_line_start(head) == Some(true))
    }

    /// Consume `len` bytes, keeping the line count.
    fn advance(&mut self, len: usize) {
        track_lines(
            &self.buf[self.pos..self.pos + len],
            self.base + self.pos as u64,
            self.base,
            &mut self.line,
            &mut self.line_start,
            &mut self.line_wide,
        );
        self.pos += len;
    }

    /// Consume `len` bytes that hold no line break (a token, a number).
    fn advance_inline(&mut self, len: usize) {
        let consumed = &self.buf[self.pos..self.pos + len];
        if !consumed.is_ascii() && self.line_start >= self.base {
            self.line_wide += continuation_bytes(consumed);
        }
        self.pos += len;
    }

    /// The position of `pos`, what [`Reader::pos_at`] gives for it.
    /// (Inlined and free of branches, so that the compiler drops it for a
    /// visitor that ignores spans.)
    #[inline(always)]
    fn pos_here(&self) -> Pos {
        let offset = self.base + self.pos as u64;
        let chars = offset
            .wrapping_sub(self.line_start)
            .wrapping_sub(self.line_wide);
        let pos = Pos {
            offset,
            line: self.line,
            column: u32::try_from(chars.wrapping_add(1)).unwrap_or(u32::MAX),
        };
        // The tests hold the kept count to the count from the text.
        #[cfg(test)]
        assert_eq!(pos, self.pos_scan(self.pos), "line_wide {}", self.line_wide);
        pos
    }

    /// Steps over a byte-order mark at `pos`, if one stands there, and
    /// counts the line's columns from after it; says whether it did.
    fn skip_bom(&mut self) -> Result<bool, ReadError> {
        while self.available() < BOM.len() && !self.eof {
            self.fill_unbounded()?;
        }
        if !self.buf[self.pos..self.end].starts_with(&BOM) {
            return Ok(false);
        }
        self.pos += BOM.len();
        self.line_start = self.base + self.pos as u64;
        Ok(true)
    }

    fn skip_whitespace(&mut self) -> Result<(), Fail> {
        loop {
            while self.pos < self.end {
                match self.buf[self.pos] {
                    b'\n' => {
                        self.pos += 1;
                        self.line += 1;
                        self.line_start = self.base + self.pos as u64;
                        self.line_wide = 0;
                    }
                    b'\r' => match self.after_cr() {
                        // Its LF is in the next window: read on.
                        None => break,
                        Some(true) => self.pos += 1,
                        Some(false) => {
                            return Err(
                                self.syntax_here(ErrorKind::LoneCarriageReturn, Resume::SkipGame)
                            );
                        }
                    },
                    b' ' | b'\t' | 0x0b | 0x0c => self.pos += 1,
                    _ => return Ok(()),
                }
            }
            if self.eof && self.pos >= self.end {
                return Ok(());
            }
            self.fill()?;
        }
    }

    /// At a CR: whether an LF follows it (CRLF, a line end), or `None` when
    /// the window ends before the answer and more input may come.
    fn after_cr(&self) -> Option<bool> {
        match self.buf.get(self.pos + 1) {
            Some(&next) if self.pos + 1 < self.end => Some(next == b'\n'),
            _ if self.eof => Some(false),
            _ => None,
        }
    }

    /// Run a lexer on the window, refilling while it asks for more.
    fn lex_simple<T>(
        &mut self,
        lexer: for<'a> fn(&'a [u8], bool) -> lex::LexResult<'a, T>,
        what: &'static str,
    ) -> Result<T, Fail> {
        loop {
            let window = &self.buf[self.pos..self.end];
            match lexer(window, self.eof) {
                Ok((_, value)) => return Ok(value),
                Err(Err::Incomplete(_)) if self.eof => {
                    return Err(self.syntax_at(
                        self.end,
                        ErrorKind::Truncated(what),
                        Resume::SkipGame,
                    ));
                }
                Err(Err::Incomplete(_)) => self.fill()?,
                Err(Err::Error(e) | Err::Failure(e)) => {
                    let kind = lex_error_kind(&e, what);
                    return Err(self.lex_failure(window.len() - e.input.len(), kind));
                }
            }
        }
    }

    /// [`quick_result`] at `pos` (in the tests, only on the fast path, so
    /// that the fast path's test holds it to the lexer).
    fn quick_result_here(&self) -> Option<usize> {
        #[cfg(test)]
        if !self.fast_path {
            return None;
        }
        quick_result(&self.buf[self.pos..self.end])
    }

    fn lex_failure(&self, offset: usize, kind: ErrorKind) -> Fail {
        self.syntax_at(self.pos + offset, kind, Resume::SkipGame)
    }

    // ----- positions and errors -----

    /// The position of buffer index `idx` (at or after `pos`).
    fn pos_at(&self, idx: usize) -> Pos {
        // Every tag and game start asks for `pos` itself: answered without
        // looking at the line.
        if idx == self.pos {
            return self.pos_here();
        }
        self.pos_scan(idx)
    }

    /// [`Reader::pos_at`] from the buffered text.
    fn pos_scan(&self, idx: usize) -> Pos {
        let mut line = self.line;
        let mut line_start = self.line_start;
        if idx > self.pos {
            let between = &self.buf[self.pos..idx];
            if let Some(last) = memchr::memrchr(b'\n', between) {
                line += memchr::memchr_iter(b'\n', between).count() as u32;
                line_start = self.base + (self.pos + last + 1) as u64;
            }
        }
        let offset = self.base + idx as u64;
        let column = match line_start.checked_sub(self.base) {
            Some(start) => {
                let text = &self.buf[start as usize..idx];
                if text.is_ascii() {
                    text.len()
                } else {
                    text.iter().filter(|&&b| (b as i8) >= -0x40).count()
                }
            }
            // The line began before the buffer: count bytes for the lost part.
            None => (offset - line_start) as usize,
        };
        Pos {
            offset,
            line,
            column: u32::try_from(column + 1).unwrap_or(u32::MAX),
        }
    }

    /// The offending text at buffer index `idx`: the rest of its line, cut
    /// to a readable length.
    fn found_at(&self, idx: usize) -> String {
        let rest = &self.buf[idx.min(self.end)..self.end];
        let line_end = memchr::memchr2(b'\n', b'\r', rest).unwrap_or(rest.len());
        let mut cut = line_end.min(60);
        while cut < line_end && cut > 0 && (rest[cut] as i8) < -0x40 {
            cut -= 1;
        }
        String::from_utf8_lossy(&rest[..cut]).into_owned()
    }

    fn syntax_at(&self, idx: usize, kind: ErrorKind, resume: Resume) -> Fail {
        Fail::Syntax {
            pos: self.pos_at(idx),
            found: self.found_at(idx),
            kind,
            resume,
        }
    }

    fn syntax_here(&self, kind: ErrorKind, resume: Resume) -> Fail {
        self.syntax_at(self.pos, kind, resume)
    }
}

/// Keep the line count over `consumed`, which starts at absolute `offset`
/// (`base`: the buffer's, for [`Reader::line_wide`]).
fn track_lines(
    consumed: &[u8],
    offset: u64,
    base: u64,
    line: &mut u32,
    line_start: &mut u64,
    line_wide: &mut u64,
) {
    if let Some(last) = memchr::memrchr(b'\n', consumed) {
        *line += memchr::memchr_iter(b'\n', consumed).count() as u32;
        *line_start = offset + (last + 1) as u64;
        *line_wide = continuation_bytes(&consumed[last + 1..]);
    } else if *line_start >= base && !consumed.is_ascii() {
        *line_wide += continuation_bytes(consumed);
    }
}

/// How many bytes of `text` continue a multi-byte character (what a
/// column, counted in characters, leaves out).
fn continuation_bytes(text: &[u8]) -> u64 {
    text.iter().filter(|&&b| (b as i8) < -0x40).count() as u64
}

/// Skip whitespace in a fast-path window from index `i`, counting line
/// breaks (`window_at` is the window's absolute offset); returns the index
/// of the first other byte (or the end).
#[inline(always)]
fn fast_whitespace(
    bytes: &[u8],
    mut i: usize,
    window_at: u64,
    (line, line_start, line_wide): (&mut u32, &mut u64, &mut u64),
) -> usize {
    while let Some(&b) = bytes.get(i) {
        match b {
            b' ' | b'\t' | 0x0b | 0x0c => i += 1,
            // CRLF; a lone CR, or one at the window's end, is left to
            // the general code (`skip_whitespace`), which refuses it.
            b'\r' if bytes.get(i + 1) == Some(&b'\n') => i += 1,
            b'\n' => {
                i += 1;
                *line += 1;
                *line_start = window_at + i as u64;
                *line_wide = 0;
            }
            _ => break,
        }
    }
    i
}

/// The length of the result token that `window` starts with, when it is
/// one of the four a finished or unfinished game ends with nearly always
/// (`1-0`, `0-1`, `1/2-1/2`, `*`) and a delimiter follows it in the window:
/// what [`lex::numeric`] answers then, without its general machinery
/// (about 120 instructions a game fewer). Anything else, or a token that
/// reaches the window's end, is left to the lexer.
#[inline]
fn quick_result(window: &[u8]) -> Option<usize> {
    let len = match window {
        [b'1', b'-', b'0', ..] | [b'0', b'-', b'1', ..] => 3,
        [b'1', b'/', b'2', b'-', b'1', b'/', b'2', ..] => 7,
        [b'*', ..] => 1,
        _ => return None,
    };
    window
        .get(len)
        .is_some_and(|&b| lex::is_token_delimiter(b))
        .then_some(len)
}

/// `text.get(from..to)`, in a form that the compiler inlines (the hot
/// loops call it for every token).
#[inline(always)]
fn substr(text: &str, from: usize, to: usize) -> Option<&str> {
    let (head, _) = text.split_at_checked(to)?;
    let (_, part) = head.split_at_checked(from)?;
    Some(part)
}

/// How a quoted string in a fast-path window ends.
enum Quoted {
    /// At the closing quote, at this index.
    Closed(usize),
    /// The window ends first.
    NeedMore,
    /// A line break or a bad escape: left to the general code.
    Refused,
}

/// Scan a quoted string's body from index `i` (just after the opening
/// quote), eight plain bytes at a time; `ascii` is cleared if it holds a
/// byte of a multi-byte character.
#[inline(always)]
fn scan_quoted(bytes: &[u8], mut i: usize, ascii: &mut bool) -> Quoted {
    loop {
        if let Some(eight) = bytes.get(i..i + 8) {
            let x = u64::from_le_bytes(eight.try_into().unwrap_or_default());
            match lex::quoted_stop(x) {
                None => {
                    i += 8;
                    continue;
                }
                Some(k) => i += k,
            }
        }
        match bytes.get(i) {
            None => return Quoted::NeedMore,
            Some(b'"') => return Quoted::Closed(i),
            Some(b'\\') => match bytes.get(i + 1) {
                Some(b'"' | b'\\') => i += 2,
                None => return Quoted::NeedMore,
                Some(_) => return Quoted::Refused,
            },
            Some(b'\n' | b'\r') => return Quoted::Refused,
            Some(&q) => {
                *ascii &= q.is_ascii();
                i += 1;
            }
        }
    }
}

/// The next fast-path window size, from the last one and the length just
/// read: a moving average, with a little room.
fn hint(old: usize, len: u64) -> usize {
    let len = usize::try_from(len)
        .unwrap_or(usize::MAX)
        .min(INITIAL_BUFFER);
    ((3 * old + len) / 4 + 32).clamp(64, INITIAL_BUFFER)
}

/// The longest prefix of `bytes` that is UTF-8, as text. The common case,
/// a window that is valid throughout, is checked with SIMD (simdutf8's
/// `basic` check, several times faster than the standard library's on
/// ASCII); only a window with an invalid or cut sequence pays for finding
/// where it ends.
fn valid_prefix(bytes: &[u8]) -> &str {
    match simdutf8::basic::from_utf8(bytes) {
        Ok(text) => text,
        Err(_) => bytes.utf8_chunks().next().map_or("", |chunk| chunk.valid()),
    }
}

/// Required tags missing from a header, for the game it names. Allocates
/// only when some are missing.
fn missing_tags(state: &GameState) -> Vec<&'static str> {
    let required = REQUIRED_MASK | state.game.map_or(0, player_mask);
    if state.seen_known & required == required {
        return Vec::new();
    }
    let seen = |name: &str| {
        tags::known_tag(name).is_some_and(|(rank, _)| state.seen_known & (1 << rank) != 0)
    };
    let players = state.game.map(GameKind::player_tags).unwrap_or(&[]);
    REQUIRED_TAGS
        .iter()
        .chain(players)
        .filter(|name| !seen(name))
        .copied()
        .collect()
}

/// Why the deal tags (`FoeLayout`, `KhanDeck`) cannot stand in this header,
/// if they cannot: they record a Genghis Khan game dealt from physical
/// cards, whose chance is nowhere else. A signed or practice game's deal
/// comes from its evidence or seed, and two sources of one deal could
/// disagree, so they never stand together.
fn deal_conflict(state: &GameState) -> Option<String> {
    let seen = |rank: usize| state.seen_known & (1 << rank) != 0;
    let (layout, deck) = (seen(FOE_LAYOUT_RANK), seen(KHAN_DECK_RANK));
    if !layout && !deck {
        return None;
    }
    if state.game != Some(GameKind::GenghisKhan) {
        let game = state.game.map_or("this", GameKind::name);
        return Some(format!(
            "the FoeLayout and KhanDeck tags record a Genghis Khan deal, and this is a {game} game"
        ));
    }
    if !layout {
        return Some(
            "tag KhanDeck needs the FoeLayout tag: a game dealt from physical cards records its Foe layout (GK-02)"
                .into(),
        );
    }
    for (rank, name) in [(MODE_RANK, "Mode"), (PRACTICE_SEED_RANK, "PracticeSeed")] {
        if seen(rank) {
            return Some(format!(
                "tag FoeLayout records a deal from physical cards, and tag {name} says the chance came from the fair-play layer: a game has one deal, so one of them must go"
            ));
        }
    }
    None
}

/// The rank of a known tag, at compile time.
const fn rank_of(name: &str) -> usize {
    let mut rank = 0;
    while rank < KNOWN_TAGS.len() {
        let (a, b) = (KNOWN_TAGS[rank].as_bytes(), name.as_bytes());
        if a.len() == b.len() {
            let mut i = 0;
            while i < a.len() && a[i] == b[i] {
                i += 1;
            }
            if i == a.len() {
                return rank;
            }
        }
        rank += 1;
    }
    panic!("not a known tag")
}

/// The seen-tag bits of `names`.
const fn mask_of(names: &[&str]) -> u64 {
    let mut mask = 0;
    let mut i = 0;
    while i < names.len() {
        mask |= 1 << rank_of(names[i]);
        i += 1;
    }
    mask
}

const GAME_RANK: usize = rank_of("Game");
const RESULT_RANK: usize = rank_of("Result");
const VERSION_RANK: usize = rank_of("NotationVersion");
const DATE_RANK: usize = rank_of("Date");
const MODE_RANK: usize = rank_of("Mode");
const PRACTICE_SEED_RANK: usize = rank_of("PracticeSeed");
const FOE_LAYOUT_RANK: usize = rank_of(deal::FOE_LAYOUT_TAG);
const KHAN_DECK_RANK: usize = rank_of(deal::KHAN_DECK_TAG);
/// The known tags whose values [`Reader::read_tag_value`] reads.
const READ_VALUE_MASK: u64 = mask_of(&[
    "Game",
    "Result",
    "Date",
    "NotationVersion",
    deal::FOE_LAYOUT_TAG,
    deal::KHAN_DECK_TAG,
]);
const REQUIRED_MASK: u64 = mask_of(&REQUIRED_TAGS);

/// The seen-tag bits of a game's player tags ([`GameKind::player_tags`]).
fn player_mask(game: GameKind) -> u64 {
    match game {
        GameKind::Khan => const { mask_of(&["White", "Black"]) },
        GameKind::CastleSiege => const { mask_of(&["Defender", "Attacker"]) },
        GameKind::GenghisKhan => const { mask_of(&["Player"]) },
    }
}

fn lex_error_kind(e: &LexError<'_>, what: &'static str) -> ErrorKind {
    match e.kind {
        LexFailure::BadEscape => ErrorKind::BadEscape(e.expected),
        LexFailure::Expected if e.expected.is_empty() => ErrorKind::Expected(what.into()),
        LexFailure::Expected => ErrorKind::Expected(e.expected.into()),
    }
}

/// The unknown tag names a game has had, by hash: a short list while the
/// game has few (they nearly all do, and a list is the fastest to search),
/// a hash set past that, so that a game of 160,000 tag pairs is not
/// 160,000 squared comparisons (it was 3.3 s for `yam check`).
#[derive(Debug, Default)]
struct SeenNames {
    few: Vec<u64>,
    many: std::collections::HashSet<u64>,
}

impl SeenNames {
    /// The most names kept in the list.
    const FEW: usize = 16;

    fn contains(&self, hash: &u64) -> bool {
        self.few.contains(hash) || (!self.many.is_empty() && self.many.contains(hash))
    }

    fn insert(&mut self, hash: u64) {
        if self.few.len() < Self::FEW {
            self.few.push(hash);
        } else {
            self.many.insert(hash);
        }
    }

    fn clear(&mut self) {
        self.few.clear();
        if !self.many.is_empty() {
            // Dropped, not cleared: clearing costs its capacity each game.
            self.many = std::collections::HashSet::new();
        }
    }
}

/// A hash of a tag name without case, to spot duplicates without allocating.
fn fold_hash(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b.to_ascii_lowercase())).wrapping_mul(0x0100_0000_01b3)
    })
}

const _: () = assert!(KNOWN_TAGS.len() <= 64, "the seen-tag bitmask holds 64 tags");

/// Where `text` has a carriage return not followed by a line feed.
fn lone_cr(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    memchr::memchr_iter(b'\r', bytes).find(|&i| bytes.get(i + 1) != Some(&b'\n'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Records every event, with its span, and refuses some tokens and
    /// tags and skips some variations and movetexts, by their content.
    #[derive(Default)]
    struct Log {
        events: Vec<String>,
        games: u64,
        variations: u64,
        /// `Some`: tokens and numbers logged without their spans, and the
        /// reader's quick offers taken (`Some(true)`), but for tokens of an
        /// odd length or with a `Z` (which `token` refuses) and odd move
        /// numbers, or all declined.
        quick: Option<bool>,
    }

    impl Visitor for Log {
        type Output = Vec<String>;
        fn begin_game(&mut self) {
            self.games += 1;
            self.events.push("begin".into());
        }
        fn tag(
            &mut self,
            name: &str,
            value: RawTagValue<'_>,
            span: Span,
        ) -> Result<(), TokenError> {
            self.events
                .push(format!("tag {name:?} {:?} {span:?}", value.0));
            if name == "Refuse" {
                return Err(TokenError::new(1, "no"));
            }
            Ok(())
        }
        fn end_tags(
            &mut self,
            game: GameKind,
        ) -> Result<crate::Skip, std::borrow::Cow<'static, str>> {
            self.events.push(format!("end_tags {game:?}"));
            Ok(crate::Skip(self.games.is_multiple_of(5)))
        }
        fn move_number(&mut self, number: u32, dots: Dots, span: Span) {
            match self.quick {
                None => self
                    .events
                    .push(format!("number {number} {dots:?} {span:?}")),
                Some(_) => self.events.push(format!("number {number} {dots:?}")),
            }
        }
        fn token(&mut self, token: &str, span: Span) -> Result<(), TokenError> {
            match self.quick {
                None => self.events.push(format!("token {token:?} {span:?}")),
                Some(_) => self.events.push(format!("token {token:?}")),
            }
            if token.contains('Z') {
                return Err(TokenError::new(token.len() / 2, "no Z"));
            }
            Ok(())
        }
        fn plain_token(&mut self, token: PlainToken<'_>) -> bool {
            let text = token.text();
            assert_eq!(
                PlainToken::new(text),
                Some(token),
                "the word holds the text"
            );
            if self.quick != Some(true) || !text.len().is_multiple_of(2) || text.contains('Z') {
                return false;
            }
            self.events.push(format!("token {text:?}"));
            true
        }
        fn plain_move_number(&mut self, number: u32) -> bool {
            if self.quick != Some(true) || number.is_multiple_of(3) {
                return false;
            }
            self.events.push(format!("number {number} One"));
            true
        }
        fn nag(&mut self, nag: Nag, span: Span) {
            self.events.push(format!("nag {nag:?} {span:?}"));
        }
        fn comment(&mut self, comment: RawComment<'_>, span: Span) {
            self.events
                .push(format!("comment {:?} {span:?}", comment.0));
        }
        fn begin_variation(&mut self) -> crate::Skip {
            self.variations += 1;
            self.events.push("(".into());
            crate::Skip(self.variations.is_multiple_of(3))
        }
        fn end_variation(&mut self) {
            self.events.push(")".into());
        }
        fn result(&mut self, result: GameResult, span: Span) {
            self.events.push(format!("result {result:?} {span:?}"));
        }
        fn end_game(&mut self) -> Vec<String> {
            std::mem::take(&mut self.events)
        }
    }

    /// Hands out at most `chunk` bytes per read.
    struct Chunked<'a> {
        data: &'a [u8],
        chunk: usize,
    }

    impl Read for Chunked<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.chunk.min(buf.len()).min(self.data.len());
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    /// Everything a read of `data` gives, in order.
    fn read_log(data: &[u8], chunk: usize, fast_path: bool) -> Vec<String> {
        log_reads(Reader::new(Chunked { data, chunk }), data, fast_path)
    }

    /// [`read_log`] with a reader given.
    fn log_reads(reader: Reader<Chunked<'_>>, data: &[u8], fast_path: bool) -> Vec<String> {
        log_reads_with(reader, data, fast_path, None)
    }

    /// [`log_reads`], the quick offers taken or not.
    fn log_reads_with(
        mut reader: Reader<Chunked<'_>>,
        data: &[u8],
        fast_path: bool,
        quick: Option<bool>,
    ) -> Vec<String> {
        reader.fast_path = fast_path;
        let mut log = Log {
            quick,
            ..Log::default()
        };
        let mut out = Vec::new();
        for _ in 0..=data.len() {
            let step = reader.read_game(&mut log);
            let end = matches!(step, Ok(None));
            out.push(match step {
                Ok(Some(events)) => format!("game {events:?}"),
                Ok(None) => "end".into(),
                Err(e) => format!("error {e:?} after {:?}", std::mem::take(&mut log.events)),
            });
            out.push(format!(
                "at {} {}",
                reader.bytes_read(),
                reader.games_read()
            ));
            if end {
                break;
            }
        }
        out
    }

    const TAGS: [&str; 9] = [
        "[Game \"Khan\"]",
        "[Variant \"V\"]",
        "[GameId \"g\"]",
        "[Date \"2026.01.01\"]",
        "[White \"W é\"]",
        "[Black \"B\"]",
        "[Result \"*\"]",
        "[NotationVersion \"1\"]",
        "[Ruleset \"r\"]",
    ];

    fn tag_piece() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec![
            "[ Annotator\t \"a \\\"q\\\\ é\" ]",
            "[X_1 \"€\"]",
            "[x_1 \"again\"]",
            "[white \"twice\"]",
            "[Refuse \"x\"]",
            "[Site \"a\\nb\"]",
            "[Site \"open",
            "[Site]",
            "[9 \"x\"]",
            "[Result \"1-0\"]",
            "[Game \"Chess\"]",
            "[NotationVersion \"2\"]",
        ])
    }

    fn separator() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec!["\n", "\n", "\n", " ", "", "\r\n", "\t", "\n\n"])
    }

    fn piece() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec![
            " ",
            "\n",
            "\r\n",
            "\t",
            "  ",
            "1.",
            "6.",
            "10.",
            "12...",
            "3..",
            "007.",
            "1234567890.",
            "4294967296.",
            "Wg4-f5",
            "a5-a4",
            "Hf5*h5",
            "Ca8#c6@1",
            "Buryats=8g",
            "YyZ_",
            "é€x",
            "Ögedei",
            "pay:\"Meat, Milk & Blood\"",
            "x\"a\\\"b\"",
            "x\"a\\qb\"",
            "x\"open",
            "\"",
            "{",
            "}",
            "{prose}",
            "{a [%clk 1:00] b}",
            "{a\nb}",
            "{é\r\n \\[x}",
            "{[%sig\n\"x y\"]}",
            "{é\n[x] \\}}",
            "{[%9]}",
            "{\\q}",
            "{\n[Game}",
            "(",
            ")",
            "$1",
            "$255",
            "$256",
            "$",
            "!",
            "?",
            "!!",
            "?!",
            "!?!",
            "*",
            "1-0",
            "0-1",
            "1/2-1/2",
            "112/150",
            "+/-",
            "-",
            "[",
            "]",
            ";",
            "%",
            "\x0b",
            "\x7f",
            "\u{a0}",
            "\n\n",
            "\n[Game \"Khan\"]\n",
        ])
    }

    /// A game: the required tags (some left out, some added) with any
    /// separators, then movetext pieces, then a result.
    fn game() -> impl Strategy<Value = Vec<u8>> {
        (
            prop::collection::vec((any::<bool>(), separator()), TAGS.len()),
            prop::collection::vec((tag_piece(), separator()), 0..3),
            prop::collection::vec(piece(), 0..40),
            prop::sample::select(vec![" *\n", " *", "*\n\n", " 1-0\n", "\n"]),
        )
            .prop_map(|(tags, extra, pieces, end)| {
                let mut data = Vec::new();
                for (tag, (keep, sep)) in TAGS.iter().zip(tags) {
                    if keep || !tag.contains("Game") {
                        data.extend_from_slice(tag.as_bytes());
                        data.extend_from_slice(sep.as_bytes());
                    }
                }
                for (tag, sep) in extra {
                    data.extend_from_slice(tag.as_bytes());
                    data.extend_from_slice(sep.as_bytes());
                }
                data.push(b'\n');
                for piece in pieces {
                    data.extend_from_slice(piece.as_bytes());
                }
                data.extend_from_slice(end.as_bytes());
                data
            })
    }

    fn soup() -> impl Strategy<Value = Vec<u8>> {
        (
            prop::collection::vec(game(), 1..4),
            prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..3),
        )
            .prop_map(|(games, flips)| {
                let mut data = games.concat();
                for (at, byte) in flips {
                    if !data.is_empty() {
                        let at = at.index(data.len());
                        data[at] = byte;
                    }
                }
                data
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// With and without the fast path, a read gives the same events,
        /// errors, positions and byte counts, good input or bad, read at
        /// once or in small pieces (which stop the fast path at every turn).
        #[test]
        fn the_fast_path_reads_like_the_general_code(data in soup(), chunk in 1usize..40) {
            for chunk in [data.len().max(1), chunk] {
                let general = read_log(&data, chunk, false);
                let fast = read_log(&data, chunk, true);
                prop_assert_eq!(general, fast, "chunk {}: {:?}", chunk, String::from_utf8_lossy(&data));
            }
        }

        /// A visitor that takes the quick offers sees the same tokens and
        /// numbers, in the same order, errors and their places included, as
        /// one that declines them: a token or number declined comes again
        /// with its span. (Spans are left out of both logs; the test above
        /// holds them.)
        #[test]
        fn the_quick_offers_are_the_tokens_and_numbers_read(data in soup(), chunk in 1usize..40) {
            for chunk in [data.len().max(1), chunk] {
                let reader = Reader::new(Chunked { data: &data, chunk });
                let full = log_reads_with(reader, &data, true, Some(false));
                let reader = Reader::new(Chunked { data: &data, chunk });
                let quick = log_reads_with(reader, &data, true, Some(true));
                prop_assert_eq!(quick, full);
            }
        }

        /// A reader given another's buffer, whatever it holds and however
        /// long it grew, reads exactly as a new one.
        #[test]
        fn a_reused_buffer_reads_like_a_new_one(data in soup(), chunk in 1usize..40) {
            let used = {
                let mut reader = Reader::new(Chunked { data: &data, chunk });
                while let Ok(Some(_)) | Err(ReadError::Syntax(_)) = reader.read_game(&mut Log::default()) {}
                reader.into_buffer()
            };
            for chunk in [data.len().max(1), chunk] {
                let new = read_log(&data, chunk, true);
                for buffer in [vec![0xff; 3 * INITIAL_BUFFER], vec![b'['; 10], used.clone()] {
                    let reader = Reader::with_buffer(Chunked { data: &data, chunk }, buffer);
                    prop_assert_eq!(&log_reads(reader, &data, true), &new);
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        /// Wherever the quick result answers, the lexer gives the same
        /// result token and length, at the end of the input or not: over
        /// runs of the bytes results are made of, results whole and cut,
        /// and the delimiters and other bytes that may follow them.
        #[test]
        fn the_quick_result_answers_as_the_lexer(pieces in prop::collection::vec(
            prop::sample::select(vec![
                "1", "0", "2", "-", "/", "+", "*", ".", "1-0", "0-1", "1/2-1/2", "1/2",
                " ", "\n", "\t", "\r", "x", "{", "(", ")", "$", "!", "[", "]", "%", "\u{e9}",
            ]),
            0..6,
        )) {
            let window = pieces.concat();
            let window = window.as_bytes();
            if let Some(len) = quick_result(window) {
                for eof in [false, true] {
                    let lexed = lex::numeric(window, eof).ok().map(|(_, numeric)| numeric);
                    prop_assert_eq!(lexed, Some(Numeric::Result { len }), "{:?}", window);
                }
            }
        }
    }

    #[test]
    fn the_quick_result_reads_the_common_results_and_declines_the_rest() {
        for (window, len) in [
            (&b"1-0\n"[..], Some(3)),
            (b"0-1 ", Some(3)),
            (b"1/2-1/2\r\n", Some(7)),
            (b"*\n", Some(1)),
            (b"*{", Some(1)),
            // Cut by the window's end: the lexer asks for more.
            (b"1-0", None),
            (b"*", None),
            // Not delimited, or not one of the four.
            (b"1-00 ", None),
            (b"1-0x", None),
            (b"1/2-1/20 ", None),
            (b"112/150 ", None),
            (b"+/- ", None),
            (b"12. ", None),
        ] {
            assert_eq!(
                quick_result(window),
                len,
                "{:?}",
                String::from_utf8_lossy(window)
            );
        }
    }

    #[test]
    fn quick_offers_taken_and_declined_read_as_full_calls() {
        // Numbers and tokens the quick path reads, some taken (10, 1, six
        // bytes) and some declined (6, five bytes, a `Z` the visitor
        // refuses), on lines of their own and not, read whole and in
        // pieces of every size up to 40 bytes.
        let movetext = "10. Wg4-f5 a5-a4 6. Wg4-f5 Hf5*h5\n1. a5-a4 Wg4-f5 7. WgZ-f5 *\n";
        let data = format!(
            "{}\n\n{movetext}{}\n\n1. Wg4-f5 *\n",
            TAGS.join("\n"),
            TAGS.join("\n")
        );
        let data = data.as_bytes();
        for chunk in (1..=40).chain([data.len()]) {
            let read = |quick| {
                let reader = Reader::new(Chunked { data, chunk });
                log_reads_with(reader, data, true, Some(quick))
            };
            let (full, quick) = (read(false), read(true));
            assert_eq!(quick, full, "chunk {chunk}");
            assert!(
                full[0].contains("number 10 One") && full[0].contains("no Z"),
                "{full:?}"
            );
        }
    }

    #[test]
    fn the_read_value_mask_holds_every_rank_read_tag_value_reads() {
        let ranks = [
            GAME_RANK,
            RESULT_RANK,
            DATE_RANK,
            FOE_LAYOUT_RANK,
            KHAN_DECK_RANK,
            VERSION_RANK,
        ];
        assert_eq!(READ_VALUE_MASK, ranks.iter().fold(0, |m, r| m | 1 << r));
    }

    #[test]
    fn player_masks_name_the_player_tags() {
        for game in GameKind::ALL {
            let names = game.player_tags();
            let mask = names
                .iter()
                .fold(0, |m, n| m | 1 << tags::known_tag(n).unwrap().0);
            assert_eq!(player_mask(game), mask, "{game}");
        }
        assert_eq!(tags::known_tag("Game").unwrap().0, GAME_RANK);
        assert_eq!(tags::known_tag("Result").unwrap().0, RESULT_RANK);
        assert_eq!(tags::known_tag("NotationVersion").unwrap().0, VERSION_RANK);
        assert_eq!(tags::known_tag("Date").unwrap().0, DATE_RANK);
    }
}
