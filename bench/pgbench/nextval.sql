SELECT nextval('s');
