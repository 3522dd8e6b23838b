#![allow(dead_code)]
pub mod heavy_chain;
pub mod reference;
