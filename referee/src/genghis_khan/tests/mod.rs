mod draws;
mod greedy;
mod playouts;
mod ruleset;
mod rulings;
mod support;
mod tableau;
mod tokens;
