mod rulings;
mod support;
