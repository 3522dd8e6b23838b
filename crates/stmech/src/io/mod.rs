//! Scenario files and result writers.
//!
//! [`scenario`] turns a TOML file into a validated model and method; [`output`] writes the
//! trajectory and run summary into an output directory that appears only on success;
//! [`beam_scenario`] parses planar-beam scenarios (`problem = "beam"`); [`vtk`] writes beam
//! shapes for ParaView; [`load`] loads a file of any problem type and locates every problem
//! in it (field path, line, remedy).

pub mod beam_scenario;
pub mod inverse_scenario;
pub mod load;
pub mod output;
pub mod scenario;
pub mod text;
pub mod vtk;
