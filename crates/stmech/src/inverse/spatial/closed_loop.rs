//! placeholder: replay of a spatial actuation in the one model (see module docs of the parent).
