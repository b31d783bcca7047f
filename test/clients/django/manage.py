#!/usr/bin/env python3
"""manage.py of the tiny Django project test/t/053_orms.pl runs (Django 3.2)"""
import os
import sys

if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "idgenproj.settings")
    from django.core.management import execute_from_command_line
    execute_from_command_line(sys.argv)
