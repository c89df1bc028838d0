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

use crate::comment::RawParts;
use crate::error::{ErrorKind, ParseError, ReadError};
use crate::lex::{self, CommentLexError, LexError, LexFailure, Numeric};
use crate::nag::Nag;
use crate::pos::{Pos, Span};
use crate::result::GameResult;
use crate::tags::{self, GameKind, KNOWN_TAGS, NOTATION_VERSION, REQUIRED_TAGS};
use crate::visitor::{Dots, RawComment, RawTagValue, Visitor};

/// The buffer's starting size.
const INITIAL_BUFFER: usize = 1 << 16;

/// The default limit on one element (a comment, a token, a tag line).
pub const DEFAULT_MAX_ELEMENT: usize = 1 << 26;

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
    /// Whether the current line is ASCII up to `pos`, so that a column is
    /// a byte count (the common case, computed without looking back).
    line_ascii: bool,
    games: u64,
    max_element: usize,
    /// Hashes of the unknown tag names seen in this game (reused).
    unknown_tags: Vec<u64>,
}

impl<R: Read> Reader<R> {
    /// A reader over `src`.
    pub fn new(src: R) -> Reader<R> {
        Reader {
            src,
            buf: vec![0; INITIAL_BUFFER],
            pos: 0,
            end: 0,
            base: 0,
            eof: false,
            line: 1,
            line_start: 0,
            line_ascii: true,
            games: 0,
            max_element: DEFAULT_MAX_ELEMENT,
            unknown_tags: Vec::new(),
        }
    }

    /// Set the largest element (comment, token, tag line) the reader will
    /// hold in memory; a larger one makes its game fail.
    pub fn with_max_element(mut self, bytes: usize) -> Reader<R> {
        self.max_element = bytes.max(INITIAL_BUFFER);
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
            self.skip_bom()?;
        }
        if let Err(fail) = self.skip_whitespace() {
            return Err(match fail {
                Fail::Io(e) => ReadError::Io(e),
                Fail::Syntax { .. } => {
                    unreachable!("skipping whitespace always frees buffer space")
                }
            });
        }
        if self.available() == 0 {
            return Ok(None);
        }
        self.games += 1;
        let game_start = self.pos_at(self.pos);
        visitor.begin_game();
        match self.read_game_body(visitor) {
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
        let game = self.read_header(visitor, &mut state)?;
        let skip_all = match visitor.end_tags(game) {
            Ok(skip) => skip.0,
            Err(expected) => {
                return Err(self.syntax_here(ErrorKind::Expected(expected), Resume::SkipGame));
            }
        };
        let result = self.read_movetext(visitor, skip_all)?;
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
            self.skip_whitespace()?;
            if self.peek()? != Some(b'[') {
                break;
            }
            self.read_tag_pair(visitor, state)?;
            count += 1;
        }
        let here = self.pos_at(self.pos);
        if count == 0 {
            return Err(self.syntax_here(
                ErrorKind::Expected("a tag pair such as [Game \"Khan\"] to begin a game".into()),
                Resume::SkipGame,
            ));
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
        let name_range = self.pos + pair.name.start..self.pos + pair.name.end;
        let value_range = self.pos + pair.value.start..self.pos + pair.value.end;
        let value = match std::str::from_utf8(&self.buf[value_range.clone()]) {
            Ok(v) => v,
            Err(e) => {
                let at = value_range.start + e.valid_up_to();
                return Err(self.syntax_at(at, ErrorKind::InvalidUtf8, Resume::SkipGame));
            }
        };
        // The lexer only lets ASCII letters, digits and _ into a name.
        let name = std::str::from_utf8(&self.buf[name_range.clone()]).unwrap_or_default();
        let dup = |name: &str| ErrorKind::DuplicateTag(name.to_owned());
        match tags::known_tag(name) {
            Some((rank, canonical)) => {
                let bit = 1u64 << rank;
                if state.seen_known & bit != 0 {
                    return Err(self.syntax_at(name_range.start, dup(canonical), Resume::SkipGame));
                }
                state.seen_known |= bit;
                let decoded = tags::unescape_tag_value(value);
                match canonical {
                    "Game" => match GameKind::from_name(&decoded) {
                        Some(g) => state.game = Some(g),
                        None => {
                            return Err(self.syntax_at(
                                value_range.start,
                                ErrorKind::UnknownGame(decoded.into_owned()),
                                Resume::SkipGame,
                            ));
                        }
                    },
                    "Result" => {
                        state.result_tag = GameResult::parse(decoded.trim().as_bytes());
                        if state.result_tag.is_none() {
                            return Err(self.syntax_at(
                                value_range.start,
                                ErrorKind::BadTag("a result: 1-0, 0-1, 1/2-1/2, +/-, -/+, -/-, * or a score such as 112/150".into()),
                                Resume::SkipGame,
                            ));
                        }
                        state.result_tag_text_ok = true;
                    }
                    "NotationVersion" if decoded.trim() != NOTATION_VERSION => {
                        return Err(self.syntax_at(
                            value_range.start,
                            ErrorKind::UnsupportedVersion(decoded.into_owned()),
                            Resume::SkipGame,
                        ));
                    }
                    _ => {}
                }
            }
            None => {
                let hash = fold_hash(name);
                if self.unknown_tags.contains(&hash) {
                    return Err(self.syntax_at(name_range.start, dup(name), Resume::SkipGame));
                }
                self.unknown_tags.push(hash);
            }
        }
        let span = Span::new(start, pair.len);
        if let Err(e) = visitor.tag(name, RawTagValue(value), span) {
            let kind = ErrorKind::BadTag(e.expected);
            let at = value_range.start + e.offset.min(value.len());
            return Err(self.syntax_at(at, kind, Resume::SkipGame));
        }
        self.advance(pair.len);
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
                b'0'..=b'9' | b'*' | b'+' | b'-' => match self
                    .lex_simple(lex::numeric, "a move number or a result")?
                {
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
                b'[' => {
                    if self.at_line_start()
                        && self.peek_at(1)?.is_some_and(|c| c.is_ascii_alphabetic())
                    {
                        let kind = if depth > 0 {
                            ErrorKind::UnterminatedVariation
                        } else {
                            ErrorKind::MissingResult
                        };
                        return Err(self.syntax_here(kind, Resume::Here));
                    }
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
                let at = range.start + e.offset.min(len);
                let found = text.to_owned();
                let mut fail = self.syntax_at(at, ErrorKind::BadMove(e.expected), Resume::SkipGame);
                if let Fail::Syntax { found: f, .. } = &mut fail {
                    *f = found;
                }
                return Err(fail);
            }
        }
        self.advance_inline(len);
        Ok(())
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
                    b' ' | b'\t' | b'\r' => self.pos += 1,
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
            while self.available() < 2 && !self.eof {
                self.fill_unbounded()?;
            }
            let is_tag = self.available() >= 2
                && self.buf[self.pos] == b'['
                && self.buf[self.pos + 1].is_ascii_alphabetic();
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
                start + 1 < self.end
                    && self.buf[start] == b'['
                    && self.buf[start + 1].is_ascii_alphabetic()
            }
            None => false,
        }
    }

    // ----- buffer management -----

    fn available(&self) -> usize {
        self.end - self.pos
    }

    /// Read more input, keeping everything from `pos` on. Grows the buffer
    /// when it is full, up to the element limit.
    fn fill(&mut self) -> Result<(), Fail> {
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

    /// Consume `len` bytes, keeping the line count.
    fn advance(&mut self, len: usize) {
        let consumed = &self.buf[self.pos..self.pos + len];
        if let Some(last) = memchr::memrchr(b'\n', consumed) {
            self.line += memchr::memchr_iter(b'\n', consumed).count() as u32;
            self.line_start = self.base + (self.pos + last + 1) as u64;
            self.line_ascii = consumed[last + 1..].is_ascii();
        } else if self.line_ascii {
            self.line_ascii = consumed.is_ascii();
        }
        self.pos += len;
    }

    /// Consume `len` bytes that hold no line break (a token, a number).
    fn advance_inline(&mut self, len: usize) {
        if self.line_ascii {
            self.line_ascii = self.buf[self.pos..self.pos + len].is_ascii();
        }
        self.pos += len;
    }

    /// The position of `pos`, cheaply when the line so far is ASCII.
    fn pos_here(&self) -> Pos {
        let offset = self.base + self.pos as u64;
        if self.line_ascii && self.line_start >= self.base {
            Pos {
                offset,
                line: self.line,
                column: u32::try_from(offset - self.line_start + 1).unwrap_or(u32::MAX),
            }
        } else {
            self.pos_at(self.pos)
        }
    }

    fn skip_bom(&mut self) -> Result<(), ReadError> {
        while self.available() < 3 && !self.eof {
            self.fill_unbounded()?;
        }
        if self.buf[self.pos..self.end].starts_with(&[0xef, 0xbb, 0xbf]) {
            self.pos += 3;
            self.line_start = 3;
        }
        Ok(())
    }

    fn skip_whitespace(&mut self) -> Result<(), Fail> {
        loop {
            while self.pos < self.end {
                match self.buf[self.pos] {
                    b'\n' => {
                        self.pos += 1;
                        self.line += 1;
                        self.line_start = self.base + self.pos as u64;
                        self.line_ascii = true;
                    }
                    b' ' | b'\t' | b'\r' | 0x0b | 0x0c => self.pos += 1,
                    _ => return Ok(()),
                }
            }
            if self.eof {
                return Ok(());
            }
            self.fill()?;
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

    fn lex_failure(&self, offset: usize, kind: ErrorKind) -> Fail {
        self.syntax_at(self.pos + offset, kind, Resume::SkipGame)
    }

    // ----- positions and errors -----

    /// The position of buffer index `idx` (at or after `pos`).
    fn pos_at(&self, idx: usize) -> Pos {
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

/// Required tags missing from a header, for the game it names.
fn missing_tags(state: &GameState) -> Vec<&'static str> {
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

fn lex_error_kind(e: &LexError<'_>, what: &'static str) -> ErrorKind {
    match e.kind {
        LexFailure::BadEscape => ErrorKind::BadEscape(e.expected),
        LexFailure::Expected if e.expected.is_empty() => ErrorKind::Expected(what.into()),
        LexFailure::Expected => ErrorKind::Expected(e.expected.into()),
    }
}

/// A hash of a tag name without case, to spot duplicates without allocating.
fn fold_hash(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b.to_ascii_lowercase())).wrapping_mul(0x0100_0000_01b3)
    })
}

const _: () = assert!(KNOWN_TAGS.len() <= 64, "the seen-tag bitmask holds 64 tags");
