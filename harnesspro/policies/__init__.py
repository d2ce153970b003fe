"""Model stand-ins that answer chat requests like a model would."""
