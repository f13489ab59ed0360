mod adf_properties;
mod commonmark_adf;
mod gen;
mod md_to_adf_fixtures;
mod schema;
