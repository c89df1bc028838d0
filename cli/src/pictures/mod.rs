//! Pictures of a position: SVG diagrams of each game (`svg`), the same as
//! PNG for mail (`png`), and the
//! positions of a game's main line and variations to draw (`positions`).

pub mod png;
pub mod positions;
pub mod svg;
