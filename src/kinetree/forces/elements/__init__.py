"""Built-in force elements, one module each (Simbody's ``Force_<Type>``)."""
