mod adf_properties;
mod gen;
mod schema;
