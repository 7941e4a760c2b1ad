import { Body, Controller, Post, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { CreateUserRequest, CreateUserResponse, ErrorBody } from '@ocg/contracts';
import type { UserService } from './user.service';

@Route('users')
@Tags('Users')
export class UsersController extends Controller {
  constructor(private readonly users: UserService) {
    super();
  }

  /**
   * Operators only (`users:manage`, API keys only). Creates a user with a
   * fresh wallet and returns the user's first API key, which holds every
   * user scope.
   * @summary Create a user
   */
  @Post('/')
  @Security('bearerAuth', ['users:manage'])
  @Response<ErrorBody>(409, 'A user with this email already exists')
  public createUser(@Body() body: CreateUserRequest): Promise<CreateUserResponse> {
    return this.users.create(body);
  }
}
