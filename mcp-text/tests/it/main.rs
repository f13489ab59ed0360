mod gen;
mod schema;
