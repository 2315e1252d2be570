"""Adapters to other libraries: pydantic, DB-API drivers, SQLAlchemy, Django and the SQL
functions installed in PostgreSQL. Each module imports its library only when imported
itself; users import ``snowid.sqlalchemy``, ``snowid.dbapi`` and ``snowid.django``.
"""
