//! Pictures of a position: SVG diagrams of each game (`svg`), and the
//! positions of a game's main line and variations to draw (`positions`).

pub mod positions;
pub mod svg;
