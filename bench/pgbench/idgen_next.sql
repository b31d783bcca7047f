SELECT idgen_next();
